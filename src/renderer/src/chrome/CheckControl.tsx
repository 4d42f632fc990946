/*
 * The session header's check: the command that checks this workspace's work (chosen from what the project suggests,
 * or written by the person), whether it runs after each turn that changed files, and a way to run it now.
 */

import { useEffect, useRef, useState } from 'react';
import { useAppState, type AppStore } from '../store';
import { Popover } from './Popover';

/** The workspace's check command in the header: "Check: npm test", or "Set a check…" when there is none. */
export function CheckControl({ store, sessionId, workspacePath }: { store: AppStore; sessionId: string; workspacePath: string }) {
  const chosen = useAppState(store, (state) => state.settings?.checkCommands.find((item) => item.workspacePath === workspacePath) ?? null);
  const [open, setOpen] = useState(false);
  const anchor = useRef<HTMLButtonElement>(null);
  return (
    <>
      <button
        ref={anchor}
        type="button"
        aria-expanded={open}
        title={chosen ? `The check of this folder${chosen.afterTurn ? ', run after each turn that changed files' : ''}` : undefined}
        onClick={() => setOpen(!open)}
      >
        {chosen ? `Check: ${chosen.command}` : 'Set a check…'}
      </button>
      {open && (
        <Popover anchor={anchor} onClose={() => setOpen(false)} className="check-popover" role="dialog" label="Check of this folder">
          <CheckForm
            store={store}
            sessionId={sessionId}
            command={chosen?.command ?? ''}
            afterTurn={chosen?.afterTurn ?? true}
            onDone={() => setOpen(false)}
          />
        </Popover>
      )}
    </>
  );
}

function CheckForm({
  store,
  sessionId,
  command,
  afterTurn,
  onDone,
}: {
  store: AppStore;
  sessionId: string;
  command: string;
  afterTurn: boolean;
  onDone: () => void;
}) {
  const [draft, setDraft] = useState(command);
  const [after, setAfter] = useState(afterTurn);
  const [suggestions, setSuggestions] = useState<Array<{ command: string; from: string }> | null>(null);
  const save = (next: string | null): void =>
    void store.attempt(async () => {
      store.setSettings(await store.call('check:set', { sessionId, command: next, afterTurn: after }));
      onDone();
    });
  useEffect(() => {
    let live = true;
    store.call('check:suggest', { sessionId }).then(
      (found) => live && setSuggestions(found),
      () => live && setSuggestions([]),
    );
    return () => {
      live = false;
    };
  }, [store, sessionId]);
  return (
    <form
      className="form"
      onSubmit={(event) => {
        event.preventDefault();
        if (draft.trim() !== '') save(draft.trim());
      }}
    >
      <p className="small muted">
        A command that checks the work in this folder. The agent can run it with run_check, and it can run after each turn that changed
        files; it runs like the agent&apos;s commands, in the sandbox.
      </p>
      {suggestions && suggestions.length > 0 && (
        <ul className="check-suggestions" aria-label="Suggested checks">
          {suggestions.map((item) => (
            <li key={item.command}>
              <button type="button" className="link" onClick={() => setDraft(item.command)}>
                <code>{item.command}</code>
              </button>{' '}
              <span className="muted small">from {item.from}</span>
            </li>
          ))}
        </ul>
      )}
      <input
        aria-label="Check command"
        placeholder="npm test"
        value={draft}
        maxLength={2000}
        onChange={(event) => setDraft(event.target.value)}
      />
      <label className="row small">
        <input type="checkbox" checked={after} onChange={(event) => setAfter(event.target.checked)} />
        Run it after each turn that changed files
      </label>
      <div className="row">
        <button type="submit" className="primary" disabled={draft.trim() === ''}>
          Save check
        </button>
        {command !== '' && (
          <button type="button" onClick={() => save(null)}>
            No check
          </button>
        )}
      </div>
    </form>
  );
}
