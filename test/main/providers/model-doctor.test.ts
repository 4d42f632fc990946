import { afterEach, describe, expect, it } from 'vitest';
import type { ModelProvider } from '../../../src/main/agent/ports/model-provider';
import { checkModel, refusedInTurn, type DoctorTimeouts } from '../../../src/main/providers/model-doctor';
import { modelCheckSchema } from '../../../src/shared/domain';
import { OllamaProvider } from '../../../src/main/providers/ollama-provider';
import { OpenAICompatibleProvider } from '../../../src/main/providers/openai-compatible-provider';
import { ScriptedModelServer, type ScriptedModelServerOptions } from '../../scripted-model-server';

const quick: DoctorTimeouts = { reachMs: 2_000, windowMs: 2_000, generateMs: 5_000 };

describe('the model doctor against a real server', () => {
  let server: ScriptedModelServer | null = null;
  afterEach(async () => {
    await server?.close();
    server = null;
  });

  const check = async (
    options: ScriptedModelServerOptions,
    kind: 'openai-compatible' | 'ollama' = 'openai-compatible',
    timeouts = quick,
  ) => {
    server = await ScriptedModelServer.start({ models: [{ id: 'm', contextLength: 16384 }], ...options });
    const provider: ModelProvider =
      kind === 'ollama'
        ? new OllamaProvider({ baseUrl: server.ollamaBaseUrl })
        : new OpenAICompatibleProvider({ baseUrl: server.openaiBaseUrl });
    const startedAt = Date.now();
    const report = await checkModel(
      { providerId: 'p', kind, baseUrl: server.url, provider, model: 'm' },
      { now: () => Date.now(), timeouts },
      AbortSignal.timeout(30_000),
    );
    return { report, tookMs: Date.now() - startedAt, requests: server.requests.length, probes: server.probes };
  };

  it('finds native tool calls working, the window, the speed, and no problem, without taking a queued turn', async () => {
    const { report, requests, probes } = await check({ personality: 'llama.cpp', contextWindow: 8192 });
    expect(report).toMatchObject({
      reachable: { ok: true },
      window: { loaded: 8192, trained: 16384, detail: 'reported by llama.cpp', route: expect.stringContaining('llama.cpp /props') },
      tools: { status: 'works', detail: expect.stringContaining('get_time') },
      reasoning: 'none',
      protocol: 'native',
      problems: [],
    });
    expect(report.tokensPerSecond).toBeGreaterThan(0);
    expect(requests).toBe(0);
    expect(probes.map((probe) => Array.isArray(probe.body['tools']))).toEqual([true, false]);
  });

  it('names the fix when a server refuses tool definitions, and chooses text tool calls', async () => {
    const llama = await check({ personality: 'llama.cpp', textOnly: true });
    expect(llama.report).toMatchObject({ tools: { status: 'refused' }, protocol: 'text' });
    expect(llama.report.problems[0]?.fix).toMatch(/llama\.cpp needs --jinja/);
    await server?.close();
    const vllm = await check({ textOnly: true });
    expect(vllm.report.problems[0]?.fix).toMatch(/--enable-auto-tool-choice/);
    await server?.close();
    const ollama = await check({ textOnly: true }, 'ollama');
    expect(ollama.report).toMatchObject({ tools: { status: 'refused' }, protocol: 'text' });
    expect(ollama.report.problems[0]?.fix).toMatch(
      /This Ollama model has no tool support: the app gives this model its tools as text tool calls/,
    );
  });

  it('tells a model that ignores the tool, or answers with garbage, to use text tool calls', async () => {
    const ignoring = await check({ probes: { ignoresTools: true } });
    expect(ignoring.report).toMatchObject({ tools: { status: 'not_called' }, protocol: 'text' });
    await server?.close();
    const garbage = await check({ probes: { garbage: '\u0000\u0001 ###!!! {"name": "get_time"' } });
    expect(garbage.report).toMatchObject({ reachable: { ok: true }, tools: { status: 'not_called' }, protocol: 'text' });
    expect(garbage.report.tools.detail).toMatch(/wrote the call as text/);
  });

  it('keeps native tool calls for a model that reasons past the probe’s limit, and gives up on malformed calls', async () => {
    const thinker = await check({ probes: { reasonsPastLimit: true } });
    expect(thinker.report).toMatchObject({
      tools: { status: 'failed', detail: expect.stringMatching(/2048-token limit/) },
      protocol: 'native',
    });
    expect((thinker.probes[0]?.body as { max_tokens?: number }).max_tokens).toBe(2048);
    await server?.close();
    const malformed = await check({ probes: { wrongArguments: true } });
    expect(malformed.report).toMatchObject({
      tools: { status: 'malformed', detail: expect.stringContaining('"town": 7') },
      protocol: 'text',
    });
  });

  it('keeps what it stores within bounds when a server answers with a whole page', async () => {
    const page = `<html>${'<p>Not found</p>'.repeat(1000)}</html>`;
    const found = refusedInTurn(null, { providerId: 'p', model: 'm' }, `does not support tools ${page}`, 1);
    expect(() => modelCheckSchema.parse(found)).not.toThrow();
    expect(found.tools.detail.length).toBeLessThanOrEqual(2000);
  });

  it('says how reasoning arrives: in a field, or inline in <think> tags', async () => {
    expect((await check({ probes: { reasoning: 'field' } })).report.reasoning).toBe('field');
    await server?.close();
    expect((await check({ probes: { reasoning: 'inline' } })).report.reasoning).toBe('inline');
  });

  it('says the server does not answer, at once, when it is down', async () => {
    server = await ScriptedModelServer.start();
    const url = server.openaiBaseUrl;
    await server.close();
    server = null;
    const startedAt = Date.now();
    const report = await checkModel(
      { providerId: 'p', kind: 'openai-compatible', baseUrl: url, provider: new OpenAICompatibleProvider({ baseUrl: url }), model: 'm' },
      { now: () => Date.now(), timeouts: quick },
      AbortSignal.timeout(30_000),
    );
    expect(Date.now() - startedAt).toBeLessThan(2_000);
    expect(report).toMatchObject({ reachable: { ok: false }, tools: { status: 'unchecked' } });
    expect(report.problems[0]?.fix).toMatch(/Start the server/);
  });

  it('gives up on a slow model at the probe timeout, and on a connection closed mid-answer, with a clear result', async () => {
    const slow = await check({ probes: { chunkDelayMs: 400 } }, 'openai-compatible', { ...quick, generateMs: 600 });
    expect(slow.tookMs).toBeLessThan(4_000);
    expect(slow.report).toMatchObject({ tools: { status: 'failed' }, protocol: 'native', tokensPerSecond: null });
    expect(slow.report.problems.map((problem) => problem.problem).join(' ')).toMatch(/tool probe failed/);
    await server?.close();
    const dropped = await check({ probes: { drops: true } });
    expect(dropped.report).toMatchObject({ reachable: { ok: true }, tools: { status: 'failed' }, protocol: 'native' });
  });

  it('warns of a small window and says how to load a larger one', async () => {
    const { report } = await check({ personality: 'llama.cpp', contextWindow: 4096 });
    expect(report.problems).toEqual([
      expect.objectContaining({ problem: expect.stringContaining('4096 tokens'), fix: expect.stringMatching(/-c \(--ctx-size\).*16384/) }),
    ]);
  });
});
