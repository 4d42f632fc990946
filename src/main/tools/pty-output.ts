/*
 * The output of one pty run as it arrives: the start and the end of it kept for the result (the middle dropped past a
 * limit), and live output passed on at most once per frame, with the pty paused while too much waits to be passed on.
 */

import type { Disposable, DisposableStore } from '../../shared/lifecycle';

export interface PtyOutputOptions {
  /** Live output, at most once per `frameMs`, never more than `liveLimitBytes` in all. */
  readonly onOutput?: (text: string) => void;
  readonly frameMs: number;
  readonly liveLimitBytes: number;
  /** Bytes kept from the start and from the end of the output. */
  readonly keepBytes: number;
  /** The pty is paused above this many bytes not yet passed on, and resumed below `lowWatermark`. */
  readonly highWatermark: number;
  readonly lowWatermark: number;
}

/** What can pause the flow of output: the pty. */
export interface OutputFlow {
  pause(): void;
  resume(): void;
}

/** The kept output and its figures, as a run's result gives them. */
export interface KeptOutput {
  readonly output: string;
  readonly totalBytes: number;
  readonly droppedBytes: number;
  readonly pauses: number;
  readonly maxPendingBytes: number;
}

/** One run's output: `take` each piece, `flush` what waits, `kept` at the end. */
export class PtyOutput {
  private head = '';
  private tail = '';
  private headBytes = 0;
  private liveBytes = 0;
  private pending: string[] = [];
  private pendingBytes = 0;
  private maxPendingBytes = 0;
  private paused = false;
  private pauses = 0;
  private timer: Disposable | null = null;
  /** Bytes taken in all. */
  totalBytes = 0;

  /** `owned` holds the frame timer, so that it goes with the rest of the run. */
  constructor(
    private readonly options: PtyOutputOptions,
    private readonly flow: OutputFlow,
    private readonly owned: DisposableStore,
  ) {}

  /** Keeps a piece of output, and queues it for the live view while the live limit is not reached. */
  take(text: string): void {
    const bytes = Buffer.byteLength(text);
    const keep = this.options.keepBytes;
    this.totalBytes += bytes;
    if (this.headBytes < keep) {
      this.head += text;
      this.headBytes += bytes;
    } else {
      this.tail += text;
      if (this.tail.length > keep * 2) this.tail = this.tail.slice(-keep);
    }
    if (this.options.onOutput && this.liveBytes < this.options.liveLimitBytes) {
      this.pending.push(text);
      this.pendingBytes += bytes;
      this.maxPendingBytes = Math.max(this.maxPendingBytes, this.pendingBytes);
      this.timer ??= this.owned.timeout(() => this.flush(), this.options.frameMs);
    }
  }

  /** Passes on what waits for the live view (cut at the live limit), and resumes the pty once little waits. */
  flush(): void {
    this.timer = null;
    if (this.pending.length === 0) return;
    const limit = this.options.liveLimitBytes;
    let text = this.pending.join('');
    this.pending = [];
    this.pendingBytes = 0;
    if (this.liveBytes + Buffer.byteLength(text) > limit)
      text = `${text.slice(0, Math.max(0, limit - this.liveBytes))}\r\n[… live output stops here; the end is kept …]\r\n`;
    this.liveBytes += Buffer.byteLength(text);
    this.options.onOutput?.(text);
    if (this.paused && this.pendingBytes < this.options.lowWatermark) {
      this.paused = false;
      this.flow.resume();
    }
  }

  /** Pauses the pty while more than the high watermark waits to be passed on. */
  holdBack(): void {
    if (!this.paused && this.pendingBytes > this.options.highWatermark) {
      this.paused = true;
      this.pauses += 1;
      this.flow.pause();
    }
  }

  /** The start and the end of the output, with a note where the middle was dropped. */
  kept(): KeptOutput {
    const keep = this.options.keepBytes;
    const { head, tail, totalBytes, pauses, maxPendingBytes } = this;
    const droppedBytes = Math.max(0, totalBytes - Buffer.byteLength(head) - Buffer.byteLength(tail.slice(-keep)));
    const output = droppedBytes > 0 ? `${head}\r\n[… ${droppedBytes} bytes of output omitted …]\r\n${tail.slice(-keep)}` : head + tail;
    return { output, totalBytes, droppedBytes, pauses, maxPendingBytes };
  }
}
