import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { temporaryFolder } from '../helpers';
import { startTestHost, type TestHost } from '../host/host';

/** What a connection attempt to the host's IPC socket ends in: the first answer, or the refusal status. */
function connect(host: TestHost, token: string, origin: string): Promise<{ status: number } | { answer: unknown }> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`${host.origin.replace('http', 'ws')}/ipc?token=${encodeURIComponent(token)}`, { headers: { origin } });
    socket.on('unexpected-response', (_request, response) => resolve({ status: response.statusCode ?? 0 }));
    socket.on('open', () => socket.send(JSON.stringify({ id: 1, channel: 'session:list', payload: {} })));
    socket.on('message', (data) => {
      resolve({ answer: JSON.parse(String(data)) });
      socket.close();
    });
    socket.on('error', () => undefined);
  });
}

describe('the test host', () => {
  let folder: ReturnType<typeof temporaryFolder>;
  let host: TestHost;
  beforeAll(async () => {
    folder = temporaryFolder('workbench-host-');
    host = await startTestHost({ dataDir: folder.path });
  });
  afterAll(async () => {
    await host.close();
    folder.remove();
  });

  it('answers the page’s own origin with the run’s token', async () => {
    expect(await connect(host, host.token, host.origin)).toEqual({ answer: { id: 1, result: { ok: true, value: [] } } });
  });

  it('refuses a connection with a wrong token', async () => {
    expect(await connect(host, 'guessed-token', host.origin)).toEqual({ status: 403 });
  });

  it('refuses a connection from another origin, even with the token', async () => {
    expect(await connect(host, host.token, 'http://127.0.0.1:1')).toEqual({ status: 403 });
    expect(await connect(host, host.token, 'https://evil.example')).toEqual({ status: 403 });
  });

  it('serves the renderer and nothing outside it', async () => {
    expect((await fetch(`${host.origin}/`)).status).toBe(200);
    expect(await (await fetch(`${host.origin}/`)).text()).toContain('<script src="/__bridge.js"></script>');
    expect((await fetch(`${host.origin}/%2e%2e/%2e%2e/package.json`)).status).toBe(404);
    expect((await fetch(`${host.origin}/..%2f..%2fpackage.json`)).status).toBe(404);
  });
});
