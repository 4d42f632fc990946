/*
 * Asks a server what window it runs a model with, by every route that can say: llama.cpp's `/props`, LM Studio's model
 * lists, `/v1/models`.
 */

import { z } from 'zod';
import type { ModelWindow } from '../agent/ports/model-provider';
import { toModelError } from './provider-errors';
import { requestJson, type RouteAnswer, type RouteContext } from './server-routes';

/**
 * A window in tokens, read only when it is sane: a positive whole number no larger than any model's
 * window. Anything else (0, negative, fractional, absurd) is dropped so the next source is asked.
 */
const windowSize = z.number().int().positive().max(10_000_000).optional().catch(undefined);

/**
 * llama.cpp server, `GET /props`. `default_generation_settings.n_ctx` is one slot's window: the
 * server divides its `--ctx-size` among `--parallel` slots (`n_ctx / n_parallel`, padded to 256),
 * unless the KV cache is unified (`--kv-unified`), when each slot may use all of it. Either way it
 * is what one request gets (tools/server/README.md; src/llama-context.cpp, `n_ctx_seq`).
 */
const llamaCppPropsSchema = z.object({ default_generation_settings: z.object({ n_ctx: windowSize }) });

/**
 * LM Studio 0.4's REST API, `GET /api/v1/models`: per model its `key`, the trained
 * `max_context_length`, and each loaded instance's `config.context_length` (lmstudio.ai/docs/developer/rest/list).
 */
const lmStudioV1ModelSchema = z.object({
  key: z.string(),
  max_context_length: windowSize,
  loaded_instances: z
    .array(
      z.object({
        id: z.string().optional().catch(undefined),
        config: z.object({ context_length: windowSize }).optional().catch(undefined),
      }),
    )
    .optional()
    .catch(undefined),
});

/**
 * LM Studio's older REST API, `GET /api/v0/models`: `state` is "loaded" or "not-loaded",
 * `loaded_context_length` the window it loaded, `max_context_length` the trained one.
 */
const lmStudioV0ModelSchema = z.object({
  id: z.string(),
  state: z.string().optional().catch(undefined),
  loaded_context_length: windowSize,
  max_context_length: windowSize,
});

/**
 * An entry of `GET /v1/models`. vLLM's `max_model_len` is the window it allocated at start, so the
 * loaded one; llama.cpp's `meta.n_ctx_train` is the trained one.
 */
const listedModelSchema = z.object({
  id: z.string(),
  max_model_len: windowSize,
  meta: z.object({ n_ctx_train: windowSize }).nullish().catch(undefined),
});

const listOf = (key: string) => z.object({ [key]: z.array(z.unknown()) });

/** The entries of a list that parse; one malformed entry does not hide the others. */
function entries<T>(body: unknown, key: string, schema: z.ZodType<T>): T[] {
  const list = listOf(key).safeParse(body);
  if (!list.success) return [];
  const items = list.data[key] ?? [];
  return items.flatMap((item) => {
    const parsed = schema.safeParse(item);
    return parsed.success ? [parsed.data] : [];
  });
}

/** One figure, the server that said it (in words) and the route it came from. */
interface Figure {
  readonly tokens: number;
  readonly server: string;
  readonly route: string;
}

interface Figures {
  readonly loaded?: Figure | undefined;
  readonly trained?: Figure | undefined;
}

const figure = (tokens: number | undefined, server: string, route: string): Figure | undefined =>
  tokens === undefined ? undefined : { tokens, server, route };

function llamaCppFigures(body: unknown): Figures | null {
  const parsed = llamaCppPropsSchema.safeParse(body);
  if (!parsed.success) return null;
  return { loaded: figure(parsed.data.default_generation_settings.n_ctx, 'llama.cpp', 'llama.cpp /props') };
}

function lmStudioV1Figures(body: unknown, model: string): Figures | null {
  const found = entries(body, 'models', lmStudioV1ModelSchema).find(
    (entry) => entry.key === model || (entry.loaded_instances ?? []).some((instance) => instance.id === model),
  );
  if (!found) return null;
  const instances = found.loaded_instances ?? [];
  const instance = instances.find((candidate) => candidate.id === model) ?? instances[0];
  return {
    loaded: figure(instance?.config?.context_length, 'LM Studio', 'LM Studio /api/v1/models'),
    trained: figure(found.max_context_length, 'LM Studio', 'LM Studio /api/v1/models'),
  };
}

function lmStudioV0Figures(body: unknown, model: string): Figures | null {
  const found = entries(body, 'data', lmStudioV0ModelSchema).find((entry) => entry.id === model);
  if (!found) return null;
  return {
    loaded: figure(found.state === 'loaded' ? found.loaded_context_length : undefined, 'LM Studio', 'LM Studio /api/v0/models'),
    trained: figure(found.max_context_length, 'LM Studio', 'LM Studio /api/v0/models'),
  };
}

/** llama.cpp serves one model whatever its name in the request, so its only entry is taken. */
function listedFigures(body: unknown, model: string, singleModelServer: boolean): Figures | null {
  const listed = entries(body, 'data', listedModelSchema);
  const found = listed.find((entry) => entry.id === model) ?? (singleModelServer && listed.length === 1 ? listed[0] : undefined);
  if (!found) return null;
  return {
    loaded: figure(found.max_model_len, 'the server', '/v1/models max_model_len'),
    trained: figure(found.meta?.n_ctx_train ?? undefined, 'llama.cpp', 'llama.cpp /v1/models meta.n_ctx_train'),
  };
}

const bodyOf = (answer: RouteAnswer): unknown => (answer.kind === 'json' ? answer.body : undefined);

/** Says who gave the figures, in words, and where exactly: once when one server (or one route) gave both. */
function sourceOf(loaded: Figure | undefined, trained: Figure | undefined): { source: string; route: string } {
  const route =
    loaded && trained && loaded.route !== trained.route
      ? `${loaded.route}; trained size from ${trained.route}`
      : ((loaded ?? trained)?.route ?? '');
  const source =
    loaded && trained && loaded.server !== trained.server
      ? `reported by ${loaded.server}; the trained size by ${trained.server}`
      : `reported by ${(loaded ?? trained)?.server ?? 'the server'}`;
  return { source, route };
}

export interface WindowProbe {
  /** The base URL with its `/v1`, where `models` is. */
  readonly baseUrl: string;
  readonly model: string;
  readonly context: RouteContext;
  readonly signal: AbortSignal;
}

export interface ProbedWindow {
  readonly window: ModelWindow | null;
  /** Whether a llama.cpp server answered `/props`: it has the `/tokenize` route. */
  readonly llamaCpp: boolean;
}

/**
 * Asks the server, by every route that can say, what window it runs `model` with, and which
 * server it is. The routes are asked at once, each within the context's timeout; one that is
 * missing (404), hangs, or answers garbage is passed over. The loaded window comes first from
 * llama.cpp's `/props`, then LM Studio's model lists, then `/v1/models`' `max_model_len`; the
 * trained one from LM Studio or llama.cpp's `/v1/models`. Throws a `ModelError` when no route
 * answered at all (nothing listening, or every route timed out).
 */
export async function probeWindow(probe: WindowProbe): Promise<ProbedWindow> {
  const { root } = probe.context;
  const [props, studioV1, studioV0, listed] = await Promise.all([
    requestJson(`${root}/props`, probe.context, probe.signal),
    requestJson(`${root}/api/v1/models`, probe.context, probe.signal),
    requestJson(`${root}/api/v0/models`, probe.context, probe.signal),
    requestJson(`${probe.baseUrl.replace(/\/+$/, '')}/models`, probe.context, probe.signal),
  ]);
  if (probe.signal.aborted) throw toModelError(probe.signal.reason, probe.baseUrl, probe.signal);
  if (listed.kind === 'failed' && [props, studioV1, studioV0].every((answer) => answer.kind === 'failed'))
    throw toModelError(listed.error, probe.baseUrl, listed.signal);
  const llamaCpp = llamaCppFigures(bodyOf(props));
  const sources = [
    llamaCpp,
    lmStudioV1Figures(bodyOf(studioV1), probe.model),
    lmStudioV0Figures(bodyOf(studioV0), probe.model),
    listedFigures(bodyOf(listed), probe.model, llamaCpp !== null),
  ];
  const loaded = sources.find((found) => found?.loaded)?.loaded;
  const trained = sources.find((found) => found?.trained)?.trained;
  const window =
    loaded || trained ? { loaded: loaded?.tokens ?? null, trained: trained?.tokens ?? null, ...sourceOf(loaded, trained) } : null;
  return { window, llamaCpp: llamaCpp !== null };
}

/** Whether the server is llama.cpp, by its `/props`: for a provider that must know before it tokenizes. */
export async function isLlamaCpp(context: RouteContext, endpoint: string, signal: AbortSignal): Promise<boolean> {
  const props = await requestJson(`${context.root}/props`, context, signal);
  if (props.kind === 'failed') throw toModelError(props.error, endpoint, props.signal);
  return llamaCppFigures(bodyOf(props)) !== null;
}
