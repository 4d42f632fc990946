/*
 * The Terminal tab: a shell of the person's own in the session's folder (xterm.js), beside the agent's commands. It
 * keeps running while another tab or session is shown, and ends with the app or when the person types `exit`.
 */

import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useRef, useState } from 'react';
import { DisposableStore, toDisposable } from '../../../shared/lifecycle';
import { errorMessage } from '../client';
import { observeResize, subscription, useDisposables } from '../disposables';
import { useAppState, type AppStore } from '../store';

/** One session's terminal: the xterm drawing it, the element it is drawn in, and the shell behind it once started. */
interface Shell {
  readonly terminal: Terminal;
  readonly fit: FitAddon;
  readonly element: HTMLElement;
  terminalId: string | null;
  /** The folder the shell was started in: a new folder for the session starts a new shell there. */
  folder: string | null;
  ended: boolean;
  /** Tells the tab shown now that the shell ended (set again by each showing of the tab). */
  onEnded: () => void;
  readonly owned: DisposableStore;
}

/** The terminals of this window, by session: they outlive the tab, so switching tabs does not end a shell. */
const shells = new Map<string, Shell>();

function makeShell(store: AppStore): Shell {
  const owned = new DisposableStore();
  const terminal = owned.add(new Terminal({ fontSize: 12, scrollback: 5_000, cursorBlink: true, theme: { background: '#0d1117' } }));
  const fit = new FitAddon();
  terminal.loadAddon(fit);
  const element = document.createElement('div');
  element.className = 'terminal person-terminal';
  const shell: Shell = { terminal, fit, element, terminalId: null, folder: null, ended: false, onEnded: () => undefined, owned };
  owned.add(
    subscription(
      store.api.on['terminal:data']((payload) => {
        if (payload.terminalId === shell.terminalId) terminal.write(payload.data);
      }),
    ),
  );
  owned.add(
    subscription(
      store.api.on['terminal:exit']((payload) => {
        if (payload.terminalId !== shell.terminalId) return;
        shell.ended = true;
        terminal.write(`\r\n[The shell ended with code ${payload.exitCode}.]\r\n`);
        shell.onEnded();
      }),
    ),
  );
  // Typing, a new size and the end of the shell go to main while the shell runs.
  const live = (): string | null => (shell.ended ? null : shell.terminalId);
  owned.add(
    terminal.onData((data) => {
      const terminalId = live();
      if (terminalId) void store.call('terminal:input', { terminalId, data }).catch(() => undefined);
    }),
  );
  owned.add(
    terminal.onResize(({ cols, rows }) => {
      const terminalId = live();
      if (terminalId) void store.call('terminal:resize', { terminalId, cols, rows }).catch(() => undefined);
    }),
  );
  owned.add(
    toDisposable(() => {
      const terminalId = live();
      if (terminalId) void store.call('terminal:close', { terminalId }).catch(() => undefined);
    }),
  );
  return shell;
}

/** The session's terminal, started on first view in its folder; "New terminal" starts another once it has ended. */
export function PersonTerminal({ store, sessionId }: { store: AppStore; sessionId: string }) {
  const workspacePath = useAppState(store, (state) => state.sessions.find((session) => session.id === sessionId)?.workspacePath ?? null);
  const host = useRef<HTMLDivElement>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [ended, setEnded] = useState(false);
  const [generation, setGeneration] = useState(0);

  useDisposables(
    (disposables) => {
      const parent = host.current;
      if (!parent || !workspacePath) return;
      let shell = shells.get(sessionId);
      if (!shell || shell.ended) {
        void shell?.owned.dispose();
        shell = makeShell(store);
        shells.set(sessionId, shell);
      }
      const current = shell;
      current.onEnded = () => setEnded(true);
      setEnded(current.ended);
      parent.append(current.element);
      if (!current.terminal.element) current.terminal.open(current.element);
      current.fit.fit();
      if (current.folder !== workspacePath) {
        // Main ends a shell left in another folder when the session's new one starts.
        if (current.terminalId !== null)
          current.terminal.write(`\r\n[The session's folder is now ${workspacePath}: a new shell starts there.]\r\n`);
        current.terminalId = null;
        current.folder = workspacePath;
      }
      if (current.terminalId === null) {
        store.call('terminal:open', { sessionId, cols: current.terminal.cols, rows: current.terminal.rows }).then(
          ({ terminalId }) => {
            current.terminalId = terminalId;
            setProblem(null);
          },
          (error: unknown) => setProblem(errorMessage(error)),
        );
      }
      current.terminal.focus();
      disposables.add(observeResize(parent, () => current.fit.fit()));
      // The shell goes on while another tab is shown: only its drawing leaves the page.
      disposables.add(toDisposable(() => current.element.remove()));
    },
    [store, sessionId, workspacePath, generation],
  );

  if (!workspacePath) return <p className="muted small">Choose a folder for this session to open a terminal in it.</p>;
  return (
    <section className="person-terminal-tab" aria-label="Terminal">
      <p className="muted small">
        Your own shell in <code>{workspacePath}</code>: it runs as you, outside the sandbox, and the agent neither sees nor uses it.
      </p>
      {problem && (
        <p className="notice notice-error small" role="alert">
          {problem}
        </p>
      )}
      {ended && (
        <button type="button" onClick={() => setGeneration((value) => value + 1)}>
          New terminal
        </button>
      )}
      <div ref={host} className="person-terminal-host" />
    </section>
  );
}
