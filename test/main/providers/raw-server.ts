import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** What a route of a raw server does: answer, or (doing nothing) hang. */
export type RawRoute = (request: IncomingMessage, response: ServerResponse) => void;

export interface RawServer {
  readonly url: string;
  close(): Promise<void>;
}

/** JSON with a status, as a route's answer. */
export const json =
  (body: unknown, status = 200): RawRoute =>
  (_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };

/** Text of any kind, as a route's answer: an HTML page, garbage. */
export const text =
  (body: string, status = 200, type = 'text/html'): RawRoute =>
  (_request, response) => {
    response.writeHead(status, { 'content-type': type }).end(body);
  };

/** A route that takes the request and never answers. */
export const hang: RawRoute = () => undefined;

/**
 * A bare HTTP server on 127.0.0.1 with the routes given, "METHOD /path" to a route, and a 404 for
 * the rest: a server that misbehaves in exactly the way a test needs.
 */
export async function startRawServer(routes: Record<string, RawRoute>): Promise<RawServer> {
  const sockets = new Set<Socket>();
  const server = createServer((request, response) => {
    const route = routes[`${request.method} ${(request.url ?? '/').split('?')[0]}`];
    request.resume();
    if (route) route(request, response);
    else response.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** How a replayed answer ends: the server closes it, or the connection is cut under it. */
export type ReplayEnding = 'close' | 'cut';

/**
 * Where to cut `bytes` into pieces: every `every` bytes, and inside every character of more than one byte in UTF-8,
 * so a reader sees lines and characters split at the worst places.
 */
export function awkwardPieces(bytes: Uint8Array, every = 29): Uint8Array[] {
  const cuts = new Set<number>();
  for (let at = every; at < bytes.length; at += every) cuts.add(at);
  // A lead byte of a multi-byte character is 11xxxxxx; a cut just after it splits the character.
  bytes.forEach((byte, at) => {
    if ((byte & 0xc0) === 0xc0 && at + 1 < bytes.length) cuts.add(at + 1);
  });
  const points = [0, ...[...cuts].sort((a, b) => a - b), bytes.length];
  return points.slice(1).map((end, i) => bytes.subarray(points[i], end));
}

/**
 * A route that answers 200 with `bytes`, written piece by piece with a pause between pieces so each reaches the
 * client as a read of its own, then closes the answer or cuts the connection.
 */
export const replay =
  (bytes: Uint8Array, contentType: string, ending: ReplayEnding = 'close'): RawRoute =>
  (_request, response) => {
    response.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-cache' });
    void (async () => {
      for (const piece of awkwardPieces(bytes)) {
        response.write(piece);
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      if (ending === 'cut') response.socket?.destroy();
      else response.end();
    })();
  };
