/*
 * The person's own terminals: a shell in the session's folder that the person types in, beside the agent's commands.
 * It runs as the person, unsandboxed and unjournalled, like a terminal of their editor; nothing the agent does goes
 * through it. Output is handed on at most once a frame.
 */

import * as pty from 'node-pty';
import { WorkbenchError } from '../../shared/errors';
import { DisposableStore, type Disposable } from '../../shared/lifecycle';

/** How many terminals may be open at once, over every session. */
const maxTerminals = 8;

export interface PersonTerminalEvents {
  /** Output of a terminal, gathered over a frame. */
  readonly onData: (terminalId: string, data: string) => void;
  /** The shell ended (the person typed `exit`, or it was closed). */
  readonly onExit: (terminalId: string, exitCode: number) => void;
}

interface Open {
  readonly sessionId: string;
  readonly cwd: string;
  readonly process: pty.IPty;
  pending: string;
  flush: Disposable | null;
}

/** The shell to run: the person's own (`$SHELL`), else bash, else sh. */
function personShell(env: NodeJS.ProcessEnv): string {
  if (process.platform === 'win32') return env['COMSPEC'] ?? 'cmd.exe';
  return env['SHELL'] && env['SHELL'].startsWith('/') ? env['SHELL'] : '/bin/bash';
}

/** The terminals the person opened, by id; all of them end when the app closes. */
export class PersonTerminals implements Disposable {
  private readonly open = new Map<string, Open>();
  private readonly owned = new DisposableStore();
  private next = 1;

  constructor(
    private readonly events: PersonTerminalEvents,
    private readonly frameMs = 16,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  /**
   * The session's shell in `cwd`, sized `cols` by `rows`: the one running already (a window shown again, a tab opened
   * twice), else a new one. A shell left in another folder (the session's folder changed) ends first.
   */
  start(sessionId: string, cwd: string, cols: number, rows: number): string {
    if (this.owned.isDisposed) throw new WorkbenchError('invalid_state', 'The app is closing: no terminal can start.');
    for (const [terminalId, entry] of this.open) {
      if (entry.sessionId !== sessionId) continue;
      if (entry.cwd === cwd) {
        entry.process.resize(cols, rows);
        return terminalId;
      }
      this.end(terminalId);
    }
    if (this.open.size >= maxTerminals)
      throw new WorkbenchError('invalid_state', `At most ${maxTerminals} terminals can be open at once; close one first.`);
    const terminalId = `terminal-${this.next++}`;
    const { ELECTRON_RUN_AS_NODE: _node, ...env } = this.env;
    const shell = personShell(env);
    const child = pty.spawn(shell, [], {
      name: 'xterm-256color',
      cols,
      rows,
      cwd,
      env: { ...env, TERM: 'xterm-256color' } as Record<string, string>,
    });
    const entry: Open = { sessionId, cwd, process: child, pending: '', flush: null };
    this.open.set(terminalId, entry);
    child.onData((data) => {
      entry.pending += data;
      entry.flush ??= this.owned.timeout(() => this.flush(terminalId), this.frameMs);
    });
    child.onExit(({ exitCode }) => {
      this.flush(terminalId);
      this.open.delete(terminalId);
      this.events.onExit(terminalId, exitCode);
    });
    return terminalId;
  }

  /** Ends the shells of a session (it was deleted). */
  endSession(sessionId: string): void {
    for (const [terminalId, entry] of [...this.open]) if (entry.sessionId === sessionId) this.end(terminalId);
  }

  /** Types into a terminal. */
  write(terminalId: string, data: string): void {
    this.get(terminalId).process.write(data);
  }

  resize(terminalId: string, cols: number, rows: number): void {
    this.get(terminalId).process.resize(cols, rows);
  }

  /** Ends a terminal's shell; one already ended is let be. */
  end(terminalId: string): void {
    const entry = this.open.get(terminalId);
    if (!entry) return;
    this.open.delete(terminalId);
    try {
      entry.process.kill();
    } catch {
      // Gone already.
    }
  }

  dispose(): void {
    for (const terminalId of [...this.open.keys()]) this.end(terminalId);
    void this.owned.dispose();
  }

  private flush(terminalId: string): void {
    const entry = this.open.get(terminalId);
    if (!entry) return;
    if (entry.flush) this.owned.forget(entry.flush);
    entry.flush = null;
    if (entry.pending === '') return;
    const data = entry.pending;
    entry.pending = '';
    this.events.onData(terminalId, data);
  }

  private get(terminalId: string): Open {
    const entry = this.open.get(terminalId);
    if (!entry) throw new WorkbenchError('not_found', 'That terminal has ended; open a new one.');
    return entry;
  }
}
