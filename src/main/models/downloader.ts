import { createHash, type Hash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { open, rename, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { NotFoundError, toErrorInfo, type ErrorInfo } from '../../shared/errors';
import type { LocalModel } from '../../shared/local-models';
import { sizeWords, type DownloadState, type DownloadView } from '../../shared/model-catalogue';
import { DownloadFailure, errorCode, requestDownload, webPage } from './download-request';
import { readGgufHeader } from './gguf-reader';
import { freeDiskBytes } from './machine';
import { writeJsonAtomic } from './model-index';

/** A file to download. */
export interface DownloadRequest {
  readonly id: string;
  readonly name: string;
  readonly url: string;
  readonly fileName: string;
  readonly sha256: string | null;
  readonly sizeBytes: number | null;
}

export interface DownloaderOptions {
  /** The models folder; partial files live in its `.partial` folder, never beside the models. */
  readonly folder: string;
  /** Adds a finished file to the library. */
  readonly addModel: (path: string, name: string) => Promise<LocalModel>;
  /** Told of every change of a download; progress at most every `progressIntervalMs`. */
  readonly onChanged: (view: DownloadView) => void;
  readonly freeBytes?: (folder: string) => Promise<number>;
  readonly fetch?: typeof fetch;
  readonly now?: () => number;
  readonly progressIntervalMs?: number;
}

/** What is kept beside a partial file, so that a download resumes after a pause or a restart of the app. */
const sidecarSchema = z.object({
  version: z.literal(1),
  id: z.string().min(1).max(100),
  name: z.string().max(200),
  url: z.string().url().max(2_048),
  fileName: z.string().regex(/^[\w.-]+\.gguf$/),
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable(),
  checksum: z.enum(['catalogue', 'server', 'none']),
  totalBytes: z.number().int().positive().nullable(),
  etag: z.string().max(500).nullable(),
  receivedBytes: z.number().int().nonnegative(),
});
type Sidecar = z.infer<typeof sidecarSchema>;

interface Job {
  sidecar: Sidecar;
  view: DownloadView;
  controller: AbortController | null;
  running: Promise<void> | null;
  samples: Array<readonly [number, number]>;
  lastEmit: number;
  lastSaved: number;
}

/** Room kept free on the disk beyond the file itself. */
const spareBytes = 100_000_000;
const speedWindowMs = 5_000;

/**
 * Downloads model files into the models folder: resumable (`Range` from the partial file, after a pause, a cut
 * connection or a restart), checked (SHA-256 computed as it arrives, against the catalogue's or the server's), and
 * atomic (the file is renamed into the folder only once whole, checked and readable as a GGUF model).
 */
export class ModelDownloader {
  private readonly jobs = new Map<string, Job>();
  private readonly partial: string;
  private readonly now: () => number;
  private readonly fetcher: typeof fetch;

  constructor(private readonly options: DownloaderOptions) {
    this.partial = join(options.folder, '.partial');
    mkdirSync(this.partial, { recursive: true });
    this.now = options.now ?? Date.now;
    this.fetcher = options.fetch ?? fetch;
    for (const file of readdirSync(this.partial)) {
      if (!file.endsWith('.json')) continue;
      const sidecar = this.readSidecar(join(this.partial, file));
      if (sidecar && !this.jobs.has(sidecar.id)) this.jobs.set(sidecar.id, this.job(sidecar, 'paused'));
    }
  }

  list(): DownloadView[] {
    return [...this.jobs.values()].map((job) => job.view);
  }

  /** Starts a download, or resumes the one of that id; answers at once with its state. */
  start(request: DownloadRequest): DownloadView {
    const existing = this.jobs.get(request.id);
    if (existing) return this.resume(request.id);
    const sidecar: Sidecar = {
      version: 1,
      id: request.id,
      name: request.name,
      url: request.url,
      fileName: request.fileName,
      sha256: request.sha256,
      checksum: request.sha256 ? 'catalogue' : 'none',
      totalBytes: request.sizeBytes,
      etag: null,
      receivedBytes: 0,
    };
    const job = this.job(sidecar, 'downloading');
    this.jobs.set(request.id, job);
    this.saveSidecar(job);
    this.run(job);
    return job.view;
  }

  resume(id: string): DownloadView {
    const job = this.require(id);
    if (!job.running && job.view.state !== 'done') this.run(job);
    return job.view;
  }

  /** Stops a download, keeping what arrived. */
  async pause(id: string): Promise<DownloadView> {
    const job = this.require(id);
    job.controller?.abort('pause');
    await job.running;
    return job.view;
  }

  /** Stops a download and removes what arrived. */
  async cancel(id: string): Promise<void> {
    const job = this.require(id);
    job.controller?.abort('cancel');
    await job.running;
    this.removeFiles(job);
    this.jobs.delete(id);
    this.options.onChanged({ ...job.view, state: 'failed', error: { code: 'cancelled', message: 'Cancelled.' }, bytesPerSecond: null });
  }

  /** Pauses every download (their partial files stay for the next start). */
  async dispose(): Promise<void> {
    for (const job of this.jobs.values()) job.controller?.abort('pause');
    await Promise.all([...this.jobs.values()].map((job) => job.running));
  }

  private require(id: string): Job {
    const job = this.jobs.get(id);
    if (!job) throw new NotFoundError('Download', id);
    return job;
  }

  private job(sidecar: Sidecar, state: DownloadState): Job {
    const received = statSync(this.partPath(sidecar), { throwIfNoEntry: false })?.size ?? 0;
    return {
      sidecar,
      controller: null,
      running: null,
      samples: [],
      lastEmit: 0,
      lastSaved: 0,
      view: {
        id: sidecar.id,
        name: sidecar.name,
        fileName: sidecar.fileName,
        state,
        receivedBytes: received,
        totalBytes: sidecar.totalBytes,
        bytesPerSecond: null,
        secondsLeft: null,
        checksum: sidecar.checksum,
        error: null,
        modelId: null,
      },
    };
  }

  private partPath(sidecar: Sidecar): string {
    return join(this.partial, `${sidecar.fileName}.part`);
  }

  private sidecarPath(sidecar: Sidecar): string {
    return join(this.partial, `${sidecar.fileName}.json`);
  }

  private readSidecar(path: string): Sidecar | null {
    try {
      const parsed = sidecarSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  }

  private saveSidecar(job: Job): void {
    job.sidecar = { ...job.sidecar, receivedBytes: job.view.receivedBytes };
    job.lastSaved = this.now();
    writeJsonAtomic(this.sidecarPath(job.sidecar), job.sidecar);
  }

  /**
   * The sidecar, saved where a failure is being reported: a disk too full to take it must not stop the report (the part
   * is still resumable from its own length; the sidecar on disk is the one before).
   */
  private saveSidecarIfPossible(job: Job): void {
    try {
      this.saveSidecar(job);
    } catch {
      // Kept in memory; the last one written stays on disk.
    }
  }

  private removeFiles(job: Job): void {
    rmSync(this.partPath(job.sidecar), { force: true });
    rmSync(this.sidecarPath(job.sidecar), { force: true });
  }

  private update(job: Job, change: Partial<DownloadView>, force = true): void {
    const stateChanged = change.state !== undefined && change.state !== job.view.state;
    job.view = { ...job.view, ...change };
    const now = this.now();
    if (!force && !stateChanged && now - job.lastEmit < (this.options.progressIntervalMs ?? 250)) return;
    job.lastEmit = now;
    this.options.onChanged(job.view);
  }

  private run(job: Job): void {
    const controller = new AbortController();
    job.controller = controller;
    job.samples = [];
    this.update(job, { state: 'downloading', error: null, bytesPerSecond: null, secondsLeft: null });
    job.running = this.transfer(job, controller.signal)
      .catch((error: unknown) => this.failed(job, error, controller.signal))
      .finally(() => {
        job.controller = null;
        job.running = null;
      });
  }

  private failed(job: Job, error: unknown, signal: AbortSignal): void {
    const idle = { bytesPerSecond: null, secondsLeft: null };
    if (signal.aborted) {
      this.saveSidecarIfPossible(job);
      this.update(job, { state: 'paused', ...idle });
      return;
    }
    let info: ErrorInfo;
    let keep: boolean;
    if (error instanceof DownloadFailure) {
      info = error.info;
      keep = error.keepPart;
    } else if (errorCode(error) === 'ENOSPC') {
      info = {
        code: 'disk_full',
        message: `The disk is full: ${job.sidecar.name} could not be written. Free some space, then resume.`,
        retryable: true,
      };
      keep = true;
    } else if (error instanceof TypeError || errorCode(error)?.startsWith('UND_ERR') || errorCode(error) === 'ECONNRESET') {
      const total = job.view.totalBytes;
      info = {
        code: 'download_failed',
        message: `The connection was cut after ${sizeWords(job.view.receivedBytes)}${total ? ` of ${sizeWords(total)}` : ''}: Resume goes on from there.`,
        retryable: true,
      };
      keep = true;
    } else {
      info = toErrorInfo(error);
      keep = true;
    }
    if (keep && job.view.receivedBytes > 0) {
      this.saveSidecarIfPossible(job);
      this.update(job, { state: 'interrupted', error: info, ...idle });
    } else {
      this.removeFiles(job);
      this.jobs.delete(job.sidecar.id);
      this.update(job, { state: 'failed', error: info, receivedBytes: 0, ...idle });
    }
  }

  private async checkRoom(job: Job, total: number | null, have: number): Promise<void> {
    if (total === null) return;
    const free = await (this.options.freeBytes ?? freeDiskBytes)(this.partial);
    const needed = total - have;
    if (free < needed + spareBytes)
      throw new DownloadFailure(
        {
          code: 'disk_full',
          message: `Not enough room on the disk for ${job.sidecar.name}: it needs ${sizeWords(needed + spareBytes)} and ${sizeWords(free)} is free. Free some space, then try again.`,
          retryable: true,
        },
        true,
      );
  }

  private async transfer(job: Job, signal: AbortSignal): Promise<void> {
    const part = this.partPath(job.sidecar);
    let have = statSync(part, { throwIfNoEntry: false })?.size ?? 0;
    await this.checkRoom(job, job.sidecar.totalBytes, have);
    let hash = createHash('sha256');
    if (have > 0) have = await this.rehash(part, hash, signal);
    let answer = await requestDownload(this.fetcher, job.sidecar.url, have, job.sidecar.etag, signal);
    // Everything had arrived before the pause or the restart: only the checks are left.
    if (have > 0 && answer.response.status === 416 && have === job.sidecar.totalBytes) {
      await answer.response.body?.cancel();
      this.update(job, { receivedBytes: have });
      await this.finish(job, part, hash);
      return;
    }
    // The server sent the whole file (it changed, or ranges are not served), or another range, or nothing is left.
    if (have > 0 && (answer.response.status !== 206 || answer.start !== have)) {
      await answer.response.body?.cancel();
      await truncate(part, 0);
      have = 0;
      hash = createHash('sha256');
      answer = await requestDownload(this.fetcher, job.sidecar.url, 0, null, signal);
    }
    const sha256 = job.sidecar.sha256 ?? answer.linkedSha256;
    job.sidecar = {
      ...job.sidecar,
      sha256,
      checksum: job.sidecar.checksum === 'catalogue' ? 'catalogue' : sha256 ? 'server' : 'none',
      totalBytes: answer.total ?? job.sidecar.totalBytes,
      etag: answer.etag,
    };
    this.update(job, { totalBytes: job.sidecar.totalBytes, checksum: job.sidecar.checksum, receivedBytes: have });
    this.saveSidecar(job);
    await this.checkRoom(job, job.sidecar.totalBytes, have);
    await this.receive(job, answer.response, part, have, hash, signal);
    await this.finish(job, part, hash);
  }

  private async rehash(part: string, hash: Hash, signal: AbortSignal): Promise<number> {
    let size = 0;
    for await (const chunk of createReadStream(part, { signal })) {
      hash.update(chunk as Buffer);
      size += (chunk as Buffer).length;
    }
    return size;
  }

  private async receive(job: Job, response: Response, part: string, have: number, hash: Hash, signal: AbortSignal): Promise<void> {
    const file = await open(part, 'a');
    let received = have;
    let head: Buffer | null = have === 0 ? Buffer.alloc(0) : null;
    try {
      if (!response.body) throw new DownloadFailure({ code: 'download_failed', message: 'The server sent no file.' }, false);
      for await (const piece of response.body) {
        let chunk: Buffer = Buffer.from(piece);
        // The first bytes of the file say what it is: refused before anything is written unless it is a GGUF file.
        if (head !== null) {
          head = Buffer.concat([head, chunk]);
          if (head.length < 16) continue;
          sniff(head);
          chunk = head;
          head = null;
        }
        await file.write(chunk);
        hash.update(chunk);
        received += chunk.length;
        this.progress(job, received);
        if (this.now() - job.lastSaved > 1_000) this.saveSidecar(job);
      }
      if (head !== null && head.length > 0) {
        sniff(head);
        await file.write(head);
        hash.update(head);
        received += head.length;
      }
    } finally {
      await file.close();
    }
    if (signal.aborted) throw new Error('stopped');
    this.update(job, { receivedBytes: received });
    const total = job.sidecar.totalBytes;
    if (total !== null && received < total)
      throw new DownloadFailure(
        {
          code: 'download_failed',
          message: `The connection was cut after ${sizeWords(received)} of ${sizeWords(total)}: Resume goes on from there.`,
          retryable: true,
        },
        true,
      );
  }

  private progress(job: Job, received: number): void {
    const now = this.now();
    job.samples.push([now, received]);
    while (job.samples.length > 2 && now - (job.samples[0]?.[0] ?? now) > speedWindowMs) job.samples.shift();
    const first = job.samples[0];
    const span = first ? now - first[0] : 0;
    const speed = first && span >= 200 ? ((received - first[1]) * 1000) / span : null;
    const total = job.view.totalBytes;
    const secondsLeft = speed && total !== null && speed > 0 ? Math.max(0, (total - received) / speed) : null;
    this.update(job, { receivedBytes: received, bytesPerSecond: speed, secondsLeft }, false);
  }

  private async finish(job: Job, part: string, hash: Hash): Promise<void> {
    this.update(job, { state: 'verifying', bytesPerSecond: null, secondsLeft: null });
    const digest = hash.digest('hex');
    const expected = job.sidecar.sha256;
    if (expected !== null && digest !== expected)
      throw new DownloadFailure(
        {
          code: 'download_failed',
          message: `The file downloaded does not match its checksum (SHA-256 ${digest.slice(0, 12)}…, expected ${expected.slice(0, 12)}…): it was removed. Try again.`,
        },
        false,
      );
    try {
      await readGgufHeader(part);
    } catch (error) {
      throw new DownloadFailure(toErrorInfo(error), false);
    }
    // Cancelled while it was checked: nothing is added (cancel() removes the part once this returns). A pause now lets
    // the finished download be added.
    if (job.controller?.signal.reason === 'cancel') return;
    let target = join(this.options.folder, job.sidecar.fileName);
    for (let index = 2; existsSync(target); index++)
      target = join(this.options.folder, job.sidecar.fileName.replace(/\.gguf$/, `-${index}.gguf`));
    await rename(part, target);
    rmSync(this.sidecarPath(job.sidecar), { force: true });
    let model: LocalModel;
    try {
      model = await this.options.addModel(target, job.sidecar.name);
    } catch (error) {
      rmSync(target, { force: true });
      this.jobs.delete(job.sidecar.id);
      this.update(job, { state: 'failed', error: toErrorInfo(error), receivedBytes: 0 });
      return;
    }
    this.jobs.delete(job.sidecar.id);
    this.update(job, { state: 'done', modelId: model.id, error: null });
  }
}

/** Refuses a body that is a web page or not a GGUF file, from its first bytes. */
function sniff(head: Buffer): void {
  const text = head.subarray(0, 64).toString('latin1').trimStart().toLowerCase();
  if (text.startsWith('<!doctype') || text.startsWith('<html') || text.startsWith('<')) throw webPage();
  if (head.subarray(0, 4).toString('latin1') !== 'GGUF')
    throw new DownloadFailure(
      { code: 'model_file_invalid', message: 'The server sent a file that is not a GGUF model (the format the built-in runtime loads).' },
      false,
    );
}
