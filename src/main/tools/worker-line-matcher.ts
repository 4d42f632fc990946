/*
 * Runs a search's regular expression over lines in a worker thread, so a pattern that backtracks without end cannot
 * stall the app.
 */

import { Worker } from 'node:worker_threads';
import { z } from 'zod';
import { WorkbenchError } from '../../shared/errors';

/** A line that matched: its file, 1-based line number and text. */
export type MatchedLine = [path: string, line: number, text: string];

const matchedLinesSchema = z.array(z.tuple([z.string(), z.number().int().min(1), z.string()]));

/**
 * The matcher that runs in the worker. It is kept as source text and started with `eval`, so the
 * bundle needs no second entry for it. It answers, for a batch of files, at most `limit` lines
 * that match, in order.
 */
const matcherSource = `
const { parentPort, workerData } = require('node:worker_threads');
const regex = new RegExp(workerData.pattern, workerData.flags);
parentPort.on('message', ({ files, limit }) => {
  const found = [];
  for (const { path, text } of files) {
    const lines = text.split('\\n');
    for (let index = 0; index < lines.length && found.length < limit; index += 1)
      if (regex.test(lines[index])) found.push([path, index + 1, lines[index]]);
    if (found.length >= limit) break;
  }
  parentPort.postMessage(found);
});
`;

/** The refusal when a pattern takes too long on some line (catastrophic backtracking, such as `(a+)+$`). */
export class PatternTooSlowError extends WorkbenchError {
  constructor(pattern: string, seconds: number) {
    super(
      'invalid_input',
      `The pattern ${JSON.stringify(pattern)} took more than ${seconds} s to match and was stopped: it probably backtracks without end (nested repeats such as (a+)+ do). Simplify it.`,
    );
  }
}

/**
 * Runs a JavaScript regular expression over lines in a worker thread, so a pattern that backtracks
 * for minutes cannot stall the main process: a batch that runs past its deadline, or is stopped,
 * ends the worker (`terminate` interrupts running JavaScript). Call `dispose` when done.
 */
export class WorkerLineMatcher {
  private readonly worker: Worker;
  private failed: Error | null = null;

  constructor(
    private readonly pattern: string,
    flags: string,
    private readonly deadlineMs: number,
  ) {
    this.worker = new Worker(matcherSource, { eval: true, workerData: { pattern, flags } });
    this.worker.on('error', (error) => (this.failed = error));
    this.worker.unref();
  }

  /**
   * The matching lines of a batch of files, at most `limit`. Null when `signal` stopped it; throws
   * `PatternTooSlowError` past the deadline.
   */
  match(files: ReadonlyArray<{ path: string; text: string }>, limit: number, signal: AbortSignal): Promise<MatchedLine[] | null> {
    return new Promise((resolve, reject) => {
      const finish = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', stopped);
        this.worker.off('message', answered);
        this.worker.off('error', broke);
      };
      const answered = (message: unknown): void => {
        finish();
        const parsed = matchedLinesSchema.safeParse(message);
        if (parsed.success) resolve(parsed.data);
        else reject(new WorkbenchError('internal', 'The search worker answered something unexpected.'));
      };
      const broke = (error: Error): void => {
        finish();
        reject(error);
      };
      const stopped = (): void => {
        finish();
        void this.worker.terminate();
        resolve(null);
      };
      const timer = setTimeout(() => {
        finish();
        void this.worker.terminate();
        reject(new PatternTooSlowError(this.pattern, this.deadlineMs / 1000));
      }, this.deadlineMs);
      if (this.failed) return broke(this.failed);
      if (signal.aborted) return stopped();
      signal.addEventListener('abort', stopped, { once: true });
      this.worker.on('message', answered);
      this.worker.on('error', broke);
      this.worker.postMessage({ files, limit });
    });
  }

  dispose(): void {
    void this.worker.terminate();
  }
}
