/*
 * The keyboard shortcuts dialog: every shortcut of the app, grouped by where it works.
 */

import { Modal } from './Modal';

/** A group of shortcuts: where they work, and each key with what it does. */
export interface ShortcutGroupKeys {
  readonly title: string;
  readonly keys: ReadonlyArray<readonly [string, string]>;
}

/** Every keyboard shortcut, by where it works. */
export const shortcutGroups: readonly ShortcutGroupKeys[] = [
  {
    title: 'Anywhere',
    keys: [
      ['Ctrl+N', 'New session'],
      ['Alt+↑ / Alt+↓', 'Previous / next session'],
      ['Ctrl+1 … Ctrl+9', 'Go to the session at that place in the list'],
      ['Ctrl+B', 'Show or hide the sessions panel'],
      ['Ctrl+J', 'Show or hide the details panel (plan, tools, history)'],
      ['Ctrl+,', 'Settings'],
      ['Ctrl+/', 'This list'],
      ['F6 / Shift+F6', 'Next / previous part of the window (status bar, sessions, conversation, gate, message box, details)'],
      ['Alt+G', 'Go to what waits for your answer (in this session, else the next one waiting)'],
    ],
  },
  {
    title: 'Message box',
    keys: [
      ['Enter', 'Send (or queue, while a turn runs)'],
      ['Shift+Enter', 'New line'],
      ['Esc', 'Stop the running turn'],
    ],
  },
  {
    title: 'A call waiting for you',
    keys: [
      ['Alt+A', 'Allow once (on a plan: approve it)'],
      ['Alt+D', 'Deny, with the reason typed so far'],
      ['Alt+R', 'Type a reason'],
      ['Alt+1 / 2 / 3 / 4', 'Allow for 5 min / 30 min / 1 h / 5 h'],
      ['Alt+S', 'Allow for this session'],
    ],
  },
  {
    title: 'A result held for review',
    keys: [
      ['Alt+W', 'Withhold it from the model'],
      ['Alt+L', 'Let the model see it'],
    ],
  },
  {
    title: 'A budget reached',
    keys: [
      ['Alt+C', 'Continue with the step shown (+10 model calls, +25 tool calls, +10 min, +100,000 tokens, +$1)'],
      ['Alt+X', 'Stop the turn'],
    ],
  },
  {
    title: 'Panel edges',
    keys: [
      ['← / →', 'Narrower / wider'],
      ['Enter', 'Fold the panel away'],
    ],
  },
];

/** One group of shortcuts, each key beside what it does. */
export function ShortcutGroup({ group }: { group: ShortcutGroupKeys }) {
  return (
    <section aria-label={group.title}>
      <h3>{group.title}</h3>
      <dl className="shortcut-list">
        {group.keys.map(([keys, action]) => (
          <div key={keys} className="shortcut">
            <dt>
              <kbd>{keys}</kbd>
            </dt>
            <dd>{action}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

/** The keyboard shortcuts, in a dialog: Ctrl+/ or the ? button opens it, Esc closes it. */
export function ShortcutsDialog({ onClose }: { onClose: () => void }) {
  return (
    <Modal title="Keyboard shortcuts" closeLabel="Close keyboard shortcuts" className="shortcuts" onClose={onClose}>
      {shortcutGroups.map((group) => (
        <ShortcutGroup key={group.title} group={group} />
      ))}
    </Modal>
  );
}
