import { afterEach, describe, expect, it } from 'vitest';
import { LlamaCppProps } from '../../../src/main/providers/llama-cpp-props';
import type { RouteContext } from '../../../src/main/providers/server-routes';
import { hang, json, startRawServer, text, type RawRoute, type RawServer } from './raw-server';

/* What a provider remembers of a server's `/props`, over real HTTP: when it asks again, and when it never does. */

let raw: RawServer | null = null;

afterEach(async () => {
  await raw?.close();
  raw = null;
});

const llamaProps = { default_generation_settings: { n_ctx: 8192 }, total_slots: 2, chat_template: '{{ messages }}' };

/** A server whose `/props` answers as `props()` says at the time, counting how often it is asked. */
async function propsServer(props: () => RawRoute): Promise<{ context: RouteContext; asked: () => number }> {
  let asked = 0;
  raw = await startRawServer({
    'GET /props': (request, response) => {
      asked += 1;
      props()(request, response);
    },
  });
  const context = {
    root: raw.url,
    fetch: (input: Parameters<typeof fetch>[0], init?: RequestInit) => fetch(input, init),
    headers: {},
    timeoutMs: 200,
  };
  return { context, asked: () => asked };
}

const signal = new AbortController().signal;

describe('a server’s /props', () => {
  it('is asked once for every reader, and each gets the whole answer', async () => {
    const { context, asked } = await propsServer(() => json(llamaProps));
    const props = new LlamaCppProps(context);
    const [first, second] = await Promise.all([props.read(signal), props.read(signal)]);
    expect(await props.read(signal)).toBe(first);
    expect(second).toBe(first);
    expect(first).toEqual(llamaProps);
    expect(asked()).toBe(1);
  });

  it('says nothing of a server that is not llama-server, and does not ask it again', async () => {
    for (const route of [json({ model: 'other' }), json({}, 404), text('<html></html>'), hang]) {
      const { context, asked } = await propsServer(() => route);
      const props = new LlamaCppProps(context);
      expect(await props.read(signal)).toBeNull();
      expect(await props.read(signal)).toBeNull();
      expect(asked()).toBe(1);
      await raw?.close();
      raw = null;
    }
  });

  it('is asked again after a server error, and after it was forgotten', async () => {
    let answer = json({ error: 'Loading model' }, 503);
    const { context, asked } = await propsServer(() => answer);
    const props = new LlamaCppProps(context);
    expect(await props.read(signal)).toBeNull();
    answer = json(llamaProps);
    const loaded = await props.read(signal);
    expect(loaded).toEqual(llamaProps);
    expect(asked()).toBe(2);
    props.forget();
    answer = json({ ...llamaProps, total_slots: 4 });
    expect(await props.read(signal)).toMatchObject({ total_slots: 4 });
    expect(asked()).toBe(3);
  });

  it('is asked again when the reader cancelled, which says nothing of the server', async () => {
    const { context } = await propsServer(() => json(llamaProps));
    const props = new LlamaCppProps(context);
    const cancelled = new AbortController();
    cancelled.abort();
    expect(await props.read(cancelled.signal)).toBeNull();
    expect(await props.read(signal)).toEqual(llamaProps);
  });
});
