/*
 * What `/help` shows, without asking the model: the built-in commands, the person's own with where each comes from
 * (and the files left out), and the main keyboard shortcuts.
 */

import { sourceLabel, type CustomCommandList } from '../../../shared/custom-commands';
import { Modal } from '../chrome/Modal';
import { ShortcutGroup, shortcutGroups } from '../chrome/ShortcutsDialog';
import { menuCommandOf, slashCommands } from './slash-commands';

/** The groups of shortcuts `/help` shows, in this order; Ctrl+/ lists every one. */
const mainShortcuts = ['Message box', 'A call waiting for you', 'Anywhere'];
const shownShortcuts = mainShortcuts.flatMap((title) => {
  const group = shortcutGroups.find((candidate) => candidate.title === title);
  if (!group) return [];
  // Here Ctrl+/ is not "this list" but the whole one.
  return [{ ...group, keys: group.keys.map(([keys, action]) => [keys, keys === 'Ctrl+/' ? 'Every keyboard shortcut' : action] as const) }];
});

/** A list of commands, each with its usage and what it does. */
function CommandList({ commands }: { commands: ReadonlyArray<{ name: string; usage: string; summary: string; source?: string }> }) {
  return (
    <dl className="shortcut-list">
      {commands.map((command) => (
        <div key={command.name} className="shortcut">
          <dt>
            <code>{command.usage}</code>
          </dt>
          <dd>
            {command.summary}
            {command.source ? <span className="muted small"> · {command.source}</span> : null}
          </dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * `/help`: the commands there are, built-in then the person's own (with where each comes from, and the files left
 * out with why), and the main keyboard shortcuts. `dataDir` is where commands for every workspace are kept.
 */
export function HelpDialog({ list, dataDir, onClose }: { list: CustomCommandList; dataDir: string | null; onClose: () => void }) {
  const own = [...list.commands]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((command) => ({ ...menuCommandOf(command), source: `${sourceLabel(command)}: ${command.path}` }));
  return (
    <Modal title="Help" closeLabel="Close help" className="help" onClose={onClose}>
      <section aria-label="Built-in commands">
        <h3>Built-in commands</h3>
        <CommandList commands={slashCommands} />
      </section>
      <section aria-label="Your commands">
        <h3>Your commands</h3>
        {own.length > 0 ? <CommandList commands={own} /> : <p className="muted small">None yet.</p>}
        <p className="muted small">
          A Markdown file in <code>.agents/commands</code> (or <code>.claude/commands</code>) of this folder, or in{' '}
          <code>{dataDir ? `${dataDir}/commands` : 'the app’s data folder, in commands'}</code> for every folder, is a command named after
          the file (<code>review.md</code> is <code>/review</code>). Its text is the prompt: <code>$ARGUMENTS</code> in it becomes what
          follows the command, and <code>$1</code>, <code>$2</code>… its words. A front matter may give a <code>description:</code> and an{' '}
          <code>argument-hint:</code>. A folder’s command wins over one of the same name for every folder; a built-in name cannot be taken.
        </p>
        {list.notes.length > 0 && (
          <ul className="help-notes small" aria-label="Command files left out">
            {list.notes.map((note) => (
              <li key={note}>{note}</li>
            ))}
          </ul>
        )}
      </section>
      {shownShortcuts.map((group) => (
        <ShortcutGroup key={group.title} group={group} />
      ))}
    </Modal>
  );
}
