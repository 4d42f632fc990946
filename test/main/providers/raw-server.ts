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
