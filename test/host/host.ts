import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, resolve, sep } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import type { WorkbenchCore } from '../../src/main/core/workbench-core';
import type { SenderInfo } from '../../src/main/ipc/router';
import { DisposableStore, toDisposable } from '../../src/shared/lifecycle';
import { LoopbackTransport } from './loopback-transport';
import { createNodeCore, type NodeCoreOptions } from './node-core';

export interface TestHostOptions extends Omit<NodeCoreOptions, 'transport' | 'isTrustedSender'> {
  /** The built renderer (electron-vite's out/renderer). */
  readonly rendererDir?: string;
  /** The built WebSocket bridge (out/test-host/ws-bridge.js). */
  readonly bridgeFile?: string;
}

export interface TestHost {
  /** The page to open, token included. */
  readonly url: string;
  readonly origin: string;
  readonly token: string;
  readonly core: WorkbenchCore;
  readonly transport: LoopbackTransport;
  /** Calls a channel as the page would. */
  invoke(channel: string, payload: unknown): ReturnType<LoopbackTransport['invoke']>;
  close(): Promise<void>;
}

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

const projectRoot = resolve(import.meta.dirname, '../..');

/**
 * Runs the main-process core under Node and serves the built renderer on 127.0.0.1 with the IPC
 * contract over a WebSocket. A per-run token is checked on connect, and the Origin must be the
 * host's own, so no other page or process on the machine can drive it.
 */
export async function startTestHost(options: TestHostOptions): Promise<TestHost> {
  const rendererDir = options.rendererDir ?? join(projectRoot, 'out/renderer');
  const bridgeFile = options.bridgeFile ?? join(projectRoot, 'out/test-host/ws-bridge.js');
  for (const [what, path] of [
    ['renderer', join(rendererDir, 'index.html')],
    ['bridge', bridgeFile],
  ] as const) {
    if (!existsSync(path)) throw new Error(`The ${what} is not built (${path} is missing). Run "npm run build:test-host" first.`);
  }
  const token = randomBytes(24).toString('base64url');
  const transport = new LoopbackTransport();
  transport.recordEvents = false;
  let origin = '';
  // Released newest first: clients, the socket server, the HTTP server, then the core.
  const owned = new DisposableStore();
  const { core } = await createNodeCore({
    ...options,
    transport,
    isTrustedSender: (sender: SenderInfo) => sender.isMainFrame && sender.url === origin,
  });
  owned.add(core);

  const server = createServer((request, response) => serveFile(request, response, rendererDir, bridgeFile));
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  const clients = new Set<WebSocket>();
  server.on('upgrade', (request, socket, head) => {
    const url = new URL(request.url ?? '/', origin);
    if (url.pathname !== '/ipc' || url.searchParams.get('token') !== token || request.headers.origin !== origin) {
      socket.write('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n');
      socket.destroy();
      return;
    }
    sockets.handleUpgrade(request, socket, head, (client) => {
      clients.add(client);
      client.on('close', () => clients.delete(client));
      client.on('message', (data) => {
        let message: { id?: unknown; channel?: unknown; payload?: unknown; dropped?: unknown };
        try {
          message = JSON.parse(String(data)) as typeof message;
        } catch {
          return;
        }
        // A drop's path, as the preload tells main of it (not a channel: the page's bridge has no function for it).
        if (typeof message.dropped === 'string' && message.dropped.length <= 4096) {
          core.rememberChosenPath(message.dropped);
          return;
        }
        if (typeof message.id !== 'number' || typeof message.channel !== 'string') return;
        const id = message.id;
        void transport.invokeFromPage(message.channel, message.payload, { url: origin, isMainFrame: true }).then((result) => {
          if (client.readyState === client.OPEN) client.send(JSON.stringify({ id, result }));
        });
      });
    });
  });
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  owned.add(
    toDisposable(
      () =>
        new Promise<void>((resolveClose) => {
          server.closeAllConnections();
          server.close(() => resolveClose());
        }),
    ),
  );
  owned.add(toDisposable(() => void sockets.close()));
  owned.add(toDisposable(() => clients.forEach((client) => client.terminate())));
  owned.add(
    toDisposable(
      transport.onEvent((event, payload) => {
        const frame = JSON.stringify({ event, payload });
        for (const client of clients) if (client.readyState === client.OPEN) client.send(frame);
      }),
    ),
  );
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: `${origin}/?token=${token}`,
    origin,
    token,
    core,
    transport,
    invoke: (channel, payload) => transport.invoke(channel, payload, { url: origin, isMainFrame: true }),
    close: () => owned.dispose(),
  };
}

function serveFile(request: IncomingMessage, response: ServerResponse, rendererDir: string, bridgeFile: string): void {
  const pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://host').pathname);
  if (pathname === '/__bridge.js') {
    response.writeHead(200, { 'content-type': contentTypes['.js'] ?? 'text/javascript' }).end(readFileSync(bridgeFile));
    return;
  }
  const file = resolve(rendererDir, `.${pathname === '/' ? '/index.html' : pathname}`);
  if (!file.startsWith(`${rendererDir}${sep}`) || !existsSync(file)) {
    response.writeHead(404).end('Not found');
    return;
  }
  let body: Buffer | string = readFileSync(file);
  if (file.endsWith('index.html')) {
    // The bridge goes in before the app, as the preload does in Electron.
    body = body.toString('utf8').replace('<script type="module"', '<script src="/__bridge.js"></script>\n    <script type="module"');
  }
  response
    .writeHead(200, { 'content-type': contentTypes[extname(file)] ?? 'application/octet-stream', 'x-content-type-options': 'nosniff' })
    .end(body);
}
