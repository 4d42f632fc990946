import { request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import {
  CancellationToken,
  HttpExecutor,
  configureRequestOptions,
  configureRequestUrl,
  type DownloadOptions,
  type UpdateInfo,
} from 'builder-util-runtime';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppUpdater } from 'electron-updater';
import type { ElectronHttpExecutor } from 'electron-updater/out/electronHttpExecutor';
import { GenericProvider } from 'electron-updater/out/providers/GenericProvider';
import type { Updater, UpdaterConfig, UpdaterListener, UpdateCheck } from '../../src/main/updates/updater';

/** electron-updater's HTTP executor with Node's http in place of Electron's `net`: the same requests, redirects and digests. */
class NodeHttpExecutor extends HttpExecutor<ClientRequest> {
  createRequest(options: RequestOptions, callback: (response: IncomingMessage) => void): ClientRequest {
    return (options.protocol === 'https:' ? httpsRequest : httpRequest)(options, callback);
  }

  /**
   * Downloads to a file as electron-updater's own executor does: through builder-util-runtime's pipes, which check the
   * sha512 the feed gives while the bytes are written and fail the download when they differ.
   */
  download(url: URL, destination: string, options: DownloadOptions): Promise<string> {
    return options.cancellationToken.createPromise<string>((resolve, reject, onCancel) => {
      const requestOptions: RequestOptions = { headers: options.headers ?? undefined };
      configureRequestUrl(url, requestOptions);
      configureRequestOptions(requestOptions);
      this.doDownload(
        requestOptions,
        {
          destination,
          options,
          onCancel,
          callback: (error) => (error ? reject(error) : resolve(destination)),
          responseHandler: null,
        },
        0,
      );
    });
  }
}

/** Whether version `a` is newer than `b` (major.minor.patch, a pre-release before its release). */
export function isNewer(a: string, b: string): boolean {
  const parse = (version: string): { parts: number[]; pre: string } => {
    const [main = '', pre = ''] = version.replace(/^v/, '').split('-', 2);
    return { parts: main.split('.').map((part) => Number.parseInt(part, 10) || 0), pre };
  };
  const left = parse(a);
  const right = parse(b);
  for (let index = 0; index < 3; index++) {
    const difference = (left.parts[index] ?? 0) - (right.parts[index] ?? 0);
    if (difference !== 0) return difference > 0;
  }
  if (left.pre === right.pre) return false;
  return left.pre === '' || (right.pre !== '' && left.pre > right.pre);
}

/**
 * The test host's updater: electron-updater's own generic provider (run under Node) reads the feed's channel file, and
 * the file it names is downloaded through electron-updater's executor, which checks the sha512 the feed gives. Nothing
 * is installed: `install` only records that it was asked.
 */
export class FeedUpdater implements Updater {
  private config: UpdaterConfig | null = null;
  private listener: UpdaterListener | null = null;
  private found: { info: UpdateInfo; provider: GenericProvider } | null = null;
  private downloading: Promise<void> | null = null;
  readonly executor = new NodeHttpExecutor();
  /** What was downloaded and verified, and whether install was asked for. */
  downloaded: Buffer | null = null;
  installs = 0;

  constructor(private readonly currentVersion: string) {}

  configure(config: UpdaterConfig): void {
    this.config = config;
  }

  /** What it was last configured with. */
  get configured(): UpdaterConfig | null {
    return this.config;
  }

  setListener(listener: UpdaterListener): void {
    this.listener = listener;
  }

  async check(): Promise<UpdateCheck> {
    if (!this.config) throw new Error('The updater has no feed.');
    // The provider reads only `channel` and `isAddNoCacheQuery` of the updater, and calls only `request` on the
    // executor: the Node ones stand in for Electron's (the casts say no more than that).
    const updater = { channel: null, isAddNoCacheQuery: false } as unknown as AppUpdater;
    const executor = this.executor as unknown as ElectronHttpExecutor;
    const provider = new GenericProvider({ provider: 'generic', url: this.config.feedUrl }, updater, {
      platform: 'linux',
      executor,
      isUseMultipleRangeRequest: false,
    });
    const info = await provider.getLatestVersion();
    const newer = isNewer(info.version, this.currentVersion);
    this.found = newer ? { info, provider } : null;
    this.downloading = null;
    return { version: info.version, newer, download: newer && this.config.autoDownload ? this.download() : null };
  }

  download(): Promise<void> {
    const found = this.found;
    if (!found) return Promise.reject(new Error('Please check update first'));
    this.downloading ??= (async () => {
      const [file] = found.provider.resolveFiles(found.info);
      if (!file) throw new Error('The feed names no file.');
      const folder = mkdtempSync(join(tmpdir(), 'workbench-update-'));
      try {
        const destination = join(folder, 'update');
        await this.executor.download(file.url, destination, {
          sha512: file.info.sha512,
          cancellationToken: new CancellationToken(),
          onProgress: (progress) => this.listener?.onProgress(progress.percent),
        });
        this.downloaded = readFileSync(destination);
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    })();
    return this.downloading;
  }

  install(): void {
    this.installs++;
  }
}
