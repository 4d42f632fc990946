/*
 * Model downloads: resumable with Range and a sidecar, checked against their SHA-256, and placed in the library
 * only once they pass.
 */
import { createHash, type Hash } from 'node:crypto';
import { createReadStream, existsSync, rmSync, statSync } from 'node:fs';
import { open, rename, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { NotFoundError, toErrorInfo } from '../../shared/errors';
import type { LocalModel } from '../../shared/local-models';
import type { DownloadState, DownloadView } from '../../shared/model-catalogue';
import { checkDigest, checkRoom, cutShort, failureOf, sniff, speedOf } from './download-checks';
import { DownloadFailure, requestDownload } from './download-request';
import { readGgufHeader } from './gguf-reader';
import { freeDiskBytes } from './machine';
import { PartialDownloads, type Sidecar } from './partial-downloads';

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

interface Job {
  sidecar: Sidecar;
  view: DownloadView;
  controller: AbortController | null;
  running: Promise<void> | null;
  samples: Array<readonly [number, number]>;
  lastEmit: number;
  lastSaved: number;
}

/**
 * Downloads model files into the models folder: resumable (`Range` from the partial file, after a pause, a cut
 * connection or a restart), checked (SHA-256 computed as it arrives, against the catalogue's or the server's), and
 * atomic (the file is renamed into the folder only once whole, checked and readable as a GGUF model).
 */
export class ModelDownloader {
  private readonly jobs = new Map<string, Job>();
  private readonly partial: PartialDownloads;
  private readonly now: () => number;
  private readonly fetcher: typeof fetch;

  constructor(private readonly options: DownloaderOptions) {
    this.partial = new PartialDownloads(options.folder);
    this.now = options.now ?? Date.now;
    this.fetcher = options.fetch ?? fetch;
    for (const sidecar of this.partial.sidecars()) {
      if (!this.jobs.has(sidecar.id)) this.jobs.set(sidecar.id, this.job(sidecar, 'paused'));
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
    const received = statSync(this.partial.partPath(sidecar), { throwIfNoEntry: false })?.size ?? 0;
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

  private saveSidecar(job: Job): void {
    job.sidecar = { ...job.sidecar, receivedBytes: job.view.receivedBytes };
    job.lastSaved = this.now();
    this.partial.save(job.sidecar);
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
    this.partial.remove(job.sidecar);
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
    const { info, keep } = failureOf(error, job.sidecar.name, job.view.receivedBytes, job.view.totalBytes);
    if (keep && job.view.receivedBytes > 0) {
      this.saveSidecarIfPossible(job);
      this.update(job, { state: 'interrupted', error: info, ...idle });
    } else {
      this.removeFiles(job);
      this.jobs.delete(job.sidecar.id);
      this.update(job, { state: 'failed', error: info, receivedBytes: 0, ...idle });
    }
  }

  /** Refuses a download the disk has no room for; asks the disk only when the size is known. */
  private async checkRoom(job: Job, total: number | null, have: number): Promise<void> {
    if (total === null) return;
    checkRoom(job.sidecar.name, total, have, await (this.options.freeBytes ?? freeDiskBytes)(this.partial.folder));
  }

  private async transfer(job: Job, signal: AbortSignal): Promise<void> {
    const part = this.partial.partPath(job.sidecar);
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
    if (total !== null && received < total) throw cutShort(received, total);
  }

  /** Reports what arrived, with the speed and time left, at most as often as progress is reported. */
  private progress(job: Job, received: number): void {
    const speed = speedOf(job.samples, this.now(), received, job.view.totalBytes);
    this.update(job, { receivedBytes: received, ...speed }, false);
  }

  private async finish(job: Job, part: string, hash: Hash): Promise<void> {
    this.update(job, { state: 'verifying', bytesPerSecond: null, secondsLeft: null });
    checkDigest(hash.digest('hex'), job.sidecar.sha256);
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
    rmSync(this.partial.sidecarPath(job.sidecar), { force: true });
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
