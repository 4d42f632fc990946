/*
 * Tagging on a thread of its own: source files are parsed by the tagging thread (`tag-worker.ts`), so a first index of
 * a large tree never holds up the app's main thread. A thread that stops is started again for the next file; one that
 * cannot start at all leaves the tagging to the main thread, as before.
 */

import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { WorkbenchError } from '../../shared/errors';
import { GrammarError, Tagger, type FileTags } from './tagger';

/** What tags files: the tagger itself, or one that hands the work to the tagging thread. */
export interface TagSource {
  /** The tags of a file's source; null when the file is not of a language the map reads. Throws `GrammarError`. */
  tag(path: string, source: string): Promise<FileTags | null>;
}

/** A file for the tagging thread. */
export interface TagRequest {
  readonly id: number;
  readonly path: string;
  readonly source: string;
}

/** The tagging thread's answer: the tags, a grammar that could not be used, or another failure. */
export type TagReply =
  /** The thread is up, its entry loaded: a thread that stops after this stopped at work. */
  | { readonly ready: true }
  | { readonly id: number; readonly tags: FileTags | null }
  | { readonly id: number; readonly grammar: { readonly language: string; readonly reason: string } }
  | { readonly id: number; readonly error: string };

/** The tagging thread stopped while a file waited for it: the file is tagged again elsewhere. */
class ThreadStopped extends WorkbenchError {
  constructor(
    reason: string,
    /** It had come up: it stopped at work, not while starting. */
    readonly wasRunning: boolean,
  ) {
    super('internal', `The code map's tagging thread stopped: ${reason}`);
  }
}

/** Where the tagging thread's entry is: the built JavaScript, or the TypeScript source run through tsx. */
export interface TagWorkerEntry {
  readonly path: string;
  /** The entry is TypeScript: tsx's loader is registered in the thread before it is imported. */
  readonly typescript?: boolean;
}

/** The tagging thread run from this source, with tsx: for the terminal runner and the tests. */
export function sourceTagWorker(): TagWorkerEntry {
  return { path: fileURLToPath(new URL('./tag-worker.ts', import.meta.url)), typescript: true };
}

/**
 * A thread for an entry. A TypeScript one starts from a few lines that register tsx in the thread and then import it:
 * `--import tsx` given to a worker does not reach the loader of its entry.
 */
function threadFor(entry: TagWorkerEntry): Worker {
  if (!entry.typescript) return new Worker(entry.path);
  const tsx = pathToFileURL(join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/esm/api/index.mjs')).href;
  const code = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(pathToFileURL(entry.path).href)}); });`;
  return new Worker(code, { eval: true });
}

/** A thread that fails this many times is not started again: the main thread tags from then on. */
const maxStarts = 3;

interface Pending {
  readonly resolve: (tags: FileTags | null) => void;
  readonly reject: (error: Error) => void;
}

/** Tags files on the tagging thread, one thread for the whole app. */
export class WorkerTagger implements TagSource {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private starts = 0;
  private fallback: Tagger | null = null;

  constructor(private readonly entry: TagWorkerEntry) {}

  /** Whether files go to the tagging thread (false once the thread could not be kept running and the main thread tags). */
  get onThread(): boolean {
    return this.fallback === null;
  }

  async tag(path: string, source: string): Promise<FileTags | null> {
    for (let stopped = 0; ;) {
      const worker = this.fallback ? null : this.started();
      if (!worker) return (this.fallback ??= new Tagger()).tag(path, source);
      try {
        const tags = await this.ask(worker, path, source);
        // A thread that works is the thread: the starts it took are forgotten.
        this.starts = 0;
        return tags;
      } catch (error) {
        if (!(error instanceof ThreadStopped)) throw error;
        // The thread stopped under this file: it goes to a new thread once; a file that stops two is left out of the
        // index (as a file tree-sitter cannot read would be), so it never takes the tagging back to the main thread.
        if (error.wasRunning) stopped += 1;
        if (stopped >= 2) return null;
      }
    }
  }

  private ask(worker: Worker, path: string, source: string): Promise<FileTags | null> {
    const id = (this.nextId += 1);
    return new Promise<FileTags | null>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // The thread keeps the app alive while it has work, and only then.
      worker.ref();
      worker.postMessage({ id, path, source } satisfies TagRequest);
    });
  }

  /** Stops the thread; files waiting for it fail. */
  async dispose(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    this.starts = maxStarts;
    this.failPending(new WorkbenchError('cancelled', 'The code map was closed.'));
    await worker?.terminate();
  }

  private started(): Worker | null {
    if (this.worker) return this.worker;
    if (this.starts >= maxStarts) return null;
    this.starts += 1;
    let worker: Worker;
    try {
      worker = threadFor(this.entry);
    } catch {
      return null;
    }
    worker.unref();
    worker.on('message', (reply: TagReply) => {
      if ('ready' in reply) {
        running = true;
        return;
      }
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      if ('tags' in reply) waiting.resolve(reply.tags);
      else if ('grammar' in reply) waiting.reject(new GrammarError(reply.grammar.language, reply.grammar.reason));
      else waiting.reject(new Error(reply.error));
    });
    let running = false;
    const stopped = (reason: string): void => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.failPending(new ThreadStopped(reason, running));
    };
    worker.on('error', (error) => stopped(error.message));
    worker.on('exit', (code) => stopped(`it exited with code ${code}`));
    this.worker = worker;
    return worker;
  }

  private failPending(error: Error): void {
    for (const [, waiting] of this.pending) waiting.reject(error);
    this.pending.clear();
  }
}
