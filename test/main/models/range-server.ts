import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RangeServerOptions {
  /** The file served at `/cdn/model.gguf`, and through the redirect at `/resolve/model.gguf`. */
  readonly file: Buffer;
  /** Sent as `X-Linked-ETag` on the redirect (Hugging Face's way of giving a file's SHA-256); the file's own by default. */
  readonly linkedSha256?: string | null;
  /** Bytes per write, and the pause between writes, so a test can pause or cut in the middle. */
  readonly chunkBytes?: number;
  readonly chunkDelayMs?: number;
}

/**
 * A real HTTP server on 127.0.0.1 serving a file in ranges, as a model host does: `Range` gives 206 with
 * `Content-Range`, a strong `ETag` and `If-Range`; `/resolve/…` redirects to `/cdn/…` with `X-Linked-ETag`. It can cut
 * the connection once after so many bytes, answer with a status or a web page, and records every request's headers.
 */
export class RangeServer {
  readonly requests: Array<{ url: string; headers: IncomingHttpHeaders }> = [];
  /** Cut the connection once, after this many bytes of a body. */
  cutAfter: number | null = null;
  private constructor(
    private readonly server: Server,
    readonly options: RangeServerOptions,
    readonly base: string,
  ) {}

  static async start(options: RangeServerOptions): Promise<RangeServer> {
    let self: RangeServer | null = null;
    const server = createServer((request, response) => {
      if (self) self.handle(request.url ?? '/', request.headers, response);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    self = new RangeServer(server, options, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return self;
  }

  get sha256(): string {
    return createHash('sha256').update(this.options.file).digest('hex');
  }

  get etag(): string {
    return `"${this.sha256.slice(0, 16)}"`;
  }

  url(path = '/resolve/model.gguf'): string {
    return `${this.base}${path}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private handle(url: string, headers: IncomingHttpHeaders, response: ServerResponse): void {
    this.requests.push({ url, headers });
    if (url.startsWith('/resolve/')) {
      const linked = this.options.linkedSha256 === undefined ? this.sha256 : this.options.linkedSha256;
      response.writeHead(302, { location: url.replace('/resolve/', '/cdn/'), ...(linked ? { 'x-linked-etag': `"${linked}"` } : {}) });
      response.end();
      return;
    }
    if (url === '/page') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!DOCTYPE html><html><body>Sign in</body></html>');
      return;
    }
    if (url === '/page-as-binary') {
      response.writeHead(200, { 'content-type': 'application/octet-stream' }).end('<!DOCTYPE html><html><body>Sign in</body></html>');
      return;
    }
    const status = /^\/status\/(\d{3})$/.exec(url);
    if (status) {
      response.writeHead(Number(status[1]), { 'content-type': 'text/plain' }).end('no');
      return;
    }
    if (!url.startsWith('/cdn/')) {
      response.writeHead(404).end();
      return;
    }
    const file = this.options.file;
    const range = /^bytes=(\d+)-$/.exec(headers.range ?? '');
    const ifRange = headers['if-range'];
    let start = 0;
    if (range && (ifRange === undefined || ifRange === this.etag)) {
      start = Number(range[1]);
      if (start >= file.length) {
        response.writeHead(416, { 'content-range': `bytes */${file.length}` }).end();
        return;
      }
      response.writeHead(206, {
        'content-type': 'application/octet-stream',
        'content-length': String(file.length - start),
        'content-range': `bytes ${start}-${file.length - 1}/${file.length}`,
        etag: this.etag,
      });
    } else {
      response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(file.length), etag: this.etag });
    }
    this.stream(response, file.subarray(start));
  }

  private stream(response: ServerResponse, body: Buffer): void {
    const chunk = this.options.chunkBytes ?? 64 * 1024;
    const delay = this.options.chunkDelayMs ?? 0;
    let sent = 0;
    const next = (): void => {
      if (response.destroyed) return;
      if (sent >= body.length) {
        response.end();
        return;
      }
      let size = Math.min(chunk, body.length - sent);
      const cut = this.cutAfter;
      if (cut !== null && sent + size >= cut) {
        size = cut - sent;
        response.write(body.subarray(sent, sent + size), () => {
          this.cutAfter = null;
          response.socket?.destroy();
        });
        return;
      }
      response.write(body.subarray(sent, sent + size));
      sent += size;
      setTimeout(next, delay);
    };
    next();
  }
}
