/*
 * Turns for sub-agents: slots for those running at once, and one writer per folder at a time.
 */
import { CancelledError } from '../../../shared/errors';

/** A server that answers only so many requests at once (llama-server's slots), by a key of its own (its endpoint). */
export interface ServerLimit {
  readonly key: string;
  readonly cap: number;
}

/**
 * Slots for sub-agents running at once, over every session. A sub-agent waiting for its own sub-agents lends its slot
 * meanwhile, so a tree never waits on itself. A sub-agent whose server answers fewer at once also waits until fewer
 * than that run on that server; those with room pass it by meanwhile.
 */
export class Slots {
  private running = 0;
  /** Per server with a limit, how many hold a slot on it. */
  private readonly onServer = new Map<string, number>();
  private readonly waiting: Array<{ readonly wake: () => void; readonly server: ServerLimit | null }> = [];

  constructor(private readonly limit: () => number) {}

  async take(signal: AbortSignal, server: ServerLimit | null = null): Promise<void> {
    if (signal.aborted) throw new CancelledError();
    if (this.room(server)) {
      this.count(server, 1);
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const entry = {
        server,
        wake: (): void => {
          signal.removeEventListener('abort', stop);
          resolve();
        },
      };
      const stop = (): void => {
        const at = this.waiting.indexOf(entry);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(new CancelledError());
      };
      this.waiting.push(entry);
      signal.addEventListener('abort', stop, { once: true });
    });
  }

  /** Gives back a slot taken with `server`; the first waiting that has room now takes it. */
  give(server: ServerLimit | null = null): void {
    this.count(server, -1);
    // Over a limit lowered meanwhile, none: fewer run from now.
    const next = this.waiting.findIndex((entry) => this.room(entry.server));
    const [entry] = next < 0 ? [] : this.waiting.splice(next, 1);
    if (!entry) return;
    this.count(entry.server, 1);
    entry.wake();
  }

  private room(server: ServerLimit | null): boolean {
    if (this.running >= this.limit()) return false;
    return server === null || (this.onServer.get(server.key) ?? 0) < server.cap;
  }

  private count(server: ServerLimit | null, by: 1 | -1): void {
    this.running = Math.max(0, this.running + by);
    if (server === null) return;
    const now = Math.max(0, (this.onServer.get(server.key) ?? 0) + by);
    if (now === 0) this.onServer.delete(server.key);
    else this.onServer.set(server.key, now);
  }
}

/** A folder's writer turn, taken: handed to the sub-agent that runs with it, and released when it is done. */
export interface WriterTurn {
  hand(childId: string): void;
  release(): void;
}

/**
 * One writing sub-agent per folder at a time. The one that holds a folder may hand its turn down to a writing
 * sub-agent of its own (it waits for it meanwhile), and gets it back when that one is done; any other waits.
 */
export class FolderWriters {
  /** Per folder, who holds it: a chain from the first holder down to the one writing now. */
  private readonly holders = new Map<string, string[]>();
  private readonly waiting = new Set<() => void>();

  async take(folder: string, parentId: string, signal: AbortSignal): Promise<WriterTurn> {
    for (;;) {
      if (signal.aborted) throw new CancelledError();
      const chain = this.holders.get(folder) ?? [];
      if (chain.length === 0 || chain.at(-1) === parentId) {
        // A placeholder until the sub-agent exists: nobody else may take the folder meanwhile.
        const mine = [...chain, `pending:${parentId}`];
        this.holders.set(folder, mine);
        const depth = mine.length;
        return {
          hand: (childId) => {
            const now = this.holders.get(folder);
            if (now && now.length === depth) now[depth - 1] = childId;
          },
          release: () => {
            const now = this.holders.get(folder) ?? [];
            if (now.length <= 1) this.holders.delete(folder);
            else this.holders.set(folder, now.slice(0, depth - 1));
            for (const wake of [...this.waiting]) wake();
          },
        };
      }
      await new Promise<void>((resolve, reject) => {
        const wake = (): void => {
          this.waiting.delete(wake);
          signal.removeEventListener('abort', stop);
          resolve();
        };
        const stop = (): void => {
          this.waiting.delete(wake);
          reject(new CancelledError());
        };
        this.waiting.add(wake);
        signal.addEventListener('abort', stop, { once: true });
      });
    }
  }
}
