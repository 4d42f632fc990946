import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An update feed as electron-builder publishes one for a generic provider, served on 127.0.0.1: `latest-linux.yml`
 * (and the other systems' channel files) naming one file, with its size and base64 sha512, and the file itself.
 */
export interface UpdateFeedServer {
  /** The feed's folder, as the person types it into Settings. */
  readonly url: string;
  /** Every path asked for, in order. */
  readonly requests: string[];
  /** The channel file served for Linux x64, as written. */
  readonly linuxYml: string;
  close(): Promise<void>;
}

/** The channel file electron-builder writes (its `UpdateInfo`, dumped as YAML): what `app-builder` puts in latest-linux.yml. */
export function channelFile(version: string, fileName: string, payload: Buffer, releaseDate: string): string {
  const sha512 = createHash('sha512').update(payload).digest('base64');
  return [
    `version: ${version}`,
    'files:',
    `  - url: ${fileName}`,
    `    sha512: ${sha512}`,
    `    size: ${payload.length}`,
    `path: ${fileName}`,
    `sha512: ${sha512}`,
    `releaseDate: '${releaseDate}'`,
    '',
  ].join('\n');
}

export interface UpdateFeedOptions {
  readonly version: string;
  /** The update's bytes; `served` is sent instead when given (a file changed on the way, which the sha512 catches). */
  readonly payload?: Buffer;
  readonly served?: Buffer;
  /** How long each answer waits, in ms (a slow feed shows its progress). */
  readonly delayMs?: number;
}

export async function startUpdateFeed(options: UpdateFeedOptions): Promise<UpdateFeedServer> {
  const fileName = `Agent-Workbench-${options.version}.AppImage`;
  const payload = options.payload ?? Buffer.alloc(256 * 1024, 7);
  const yml = channelFile(options.version, fileName, payload, '2026-11-20T10:00:00.000Z');
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    requests.push(path);
    const answer = (): void => {
      if (/^\/feed\/latest(-linux|-mac)?\.yml$/.test(path)) {
        response.writeHead(200, { 'content-type': 'text/yaml' });
        response.end(yml);
      } else if (path === `/feed/${fileName}`) {
        const body = options.served ?? payload;
        response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(body.length) });
        response.end(body);
      } else {
        response.writeHead(404);
        response.end();
      }
    };
    if (options.delayMs) setTimeout(answer, options.delayMs);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/feed/`,
    requests,
    linuxYml: yml,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
