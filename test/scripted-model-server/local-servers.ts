import type { IncomingMessage, ServerResponse } from 'node:http';
import { tokenize } from './tokens';

/**
 * Which local server the OpenAI-protocol routes act as. Each serves the routes that server has, with
 * the fields the app reads (llama.cpp's `/props` and `/tokenize`, LM Studio's `/api/v0/models` and,
 * from 0.4, `/api/v1/models`), and refuses a prompt that does not fit with that server's status and
 * words (see overflow.ts). vLLM's is the default: a plain `/v1/models` with `max_model_len`.
 */
export type Personality = 'vllm' | 'llama.cpp' | 'lmstudio' | 'lmstudio-0.3';

export interface ScriptedModel {
  readonly id: string;
  /** The size the model was trained for (llama.cpp's `n_ctx_train`, LM Studio's `max_context_length`). */
  readonly contextLength?: number;
  /**
   * False: a model that only speaks text. A request that carries tool definitions is refused the way the server refuses
   * them for such a model, and its scripted tool calls are written as `<tool_call>` blocks in its answer.
   */
  readonly tools?: boolean;
  /** True: the model sees images. Ollama lists `vision` among its capabilities, llama.cpp `multimodal` in /v1/models. */
  readonly vision?: boolean;
  /** The chat template llama.cpp's `/props` (`chat_template`) and Ollama's `/api/show` (`template`) report. */
  readonly chatTemplate?: string;
}

/** Whether `model` (a request's model field) is served as a text-only model. */
export function speaksOnlyText(models: readonly ScriptedModel[], model: unknown): boolean {
  return models.some((candidate) => candidate.id === model && candidate.tools === false);
}

/** How each server refuses tool definitions for a model that cannot take them; null: it takes them and ignores them. */
export function toolRefusal(personality: Personality): { readonly status: number; readonly body: unknown } | null {
  switch (personality) {
    case 'llama.cpp':
      // llama-server started without --jinja.
      return { status: 500, body: { error: { code: 500, message: 'tools param requires --jinja flag', type: 'server_error' } } };
    case 'vllm':
      return {
        status: 400,
        body: {
          object: 'error',
          message: '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
          type: 'BadRequestError',
          param: null,
          code: 400,
        },
      };
    case 'lmstudio':
    case 'lmstudio-0.3':
      return null;
  }
}

/** What the routes are made from: the server's options. */
export interface LocalServerConfig {
  readonly personality: Personality;
  readonly models: readonly ScriptedModel[];
  readonly contextWindow?: number | undefined;
  /** llama.cpp's `total_slots` (see llama-slots.ts); 1 when absent. */
  readonly totalSlots?: number | undefined;
}

/**
 * The window the server runs its (first) model with: the `contextWindow` option, or, like llama.cpp
 * started without `-c`, the size the model was trained for.
 */
export function loadedWindow(config: LocalServerConfig, model: ScriptedModel | undefined = config.models[0]): number {
  return config.contextWindow ?? model?.contextLength ?? 4096;
}

type Reply = { readonly status: number; readonly body: unknown } | null;

/** llama.cpp's `GET /props`: `default_generation_settings.n_ctx` is one slot's window; `total_slots` is `--parallel`. */
function llamaCppProps(config: LocalServerConfig): unknown {
  const window = loadedWindow(config);
  return {
    default_generation_settings: { id: 0, id_task: -1, n_ctx: window, speculative: false, is_processing: false, params: { n_predict: -1 } },
    total_slots: config.totalSlots ?? 1,
    model_path: `/models/${config.models[0]?.id ?? 'scripted'}.gguf`,
    chat_template: config.models[0]?.chatTemplate ?? '',
    modalities: { vision: false },
    build_info: 'scripted',
  };
}

/** A token's id: the same piece always gets the same one, as with a real vocabulary. */
function tokenId(piece: string): number {
  let hash = 0;
  for (const char of piece) hash = (hash * 31 + char.charCodeAt(0)) % 32_000;
  return hash + 2;
}

/** llama.cpp's `POST /tokenize`: `{content, add_special, with_pieces}` to `{tokens}`, ids or `{id, piece}`. */
function llamaCppTokenize(body: Record<string, unknown>): Reply {
  if (typeof body['content'] !== 'string')
    return { status: 400, body: { error: { code: 400, message: '"content" must be provided', type: 'invalid_request_error' } } };
  const pieces = tokenize(body['content']);
  if (body['add_special'] === true) pieces.unshift('<s>');
  const tokens =
    body['with_pieces'] === true
      ? pieces.map((piece) => ({ id: piece === '<s>' ? 1 : tokenId(piece), piece }))
      : pieces.map((piece) => (piece === '<s>' ? 1 : tokenId(piece)));
  return { status: 200, body: { tokens } };
}

/** LM Studio's `GET /api/v0/models`: the first model is loaded with the server's window, the others not. */
function lmStudioV0(config: LocalServerConfig): unknown {
  return {
    object: 'list',
    data: config.models.map((model, index) => ({
      id: model.id,
      object: 'model',
      type: 'llm',
      publisher: 'scripted',
      arch: 'scripted',
      compatibility_type: 'gguf',
      quantization: 'Q4_K_M',
      state: index === 0 ? 'loaded' : 'not-loaded',
      ...(model.contextLength ? { max_context_length: model.contextLength } : {}),
      ...(index === 0 ? { loaded_context_length: loadedWindow(config, model) } : {}),
    })),
  };
}

/** LM Studio 0.4's `GET /api/v1/models`: each loaded instance's `config.context_length`. */
function lmStudioV1(config: LocalServerConfig): unknown {
  return {
    models: config.models.map((model, index) => ({
      type: 'llm',
      publisher: 'scripted',
      key: model.id,
      display_name: model.id,
      architecture: 'scripted',
      quantization: { name: 'Q4_K_M', bits_per_weight: 4 },
      size_bytes: 0,
      params_string: null,
      loaded_instances:
        index === 0 ? [{ id: model.id, config: { context_length: loadedWindow(config, model), eval_batch_size: 512 } }] : [],
      ...(model.contextLength ? { max_context_length: model.contextLength } : {}),
      format: 'gguf',
      capabilities: { vision: false, trained_for_tool_use: true },
    })),
  };
}

/** `GET /v1/models` on the OpenAI protocol, as each server writes it. */
export function openAIModels(config: LocalServerConfig): unknown {
  const entry = (model: ScriptedModel): Record<string, unknown> => {
    const base = { id: model.id, object: 'model', created: 0, ...(model.vision ? { capabilities: ['completion', 'multimodal'] } : {}) };
    switch (config.personality) {
      case 'vllm': {
        const window = config.contextWindow ?? model.contextLength;
        return { ...base, owned_by: 'vllm', ...(window ? { max_model_len: window } : {}) };
      }
      case 'llama.cpp':
        return {
          ...base,
          owned_by: 'llamacpp',
          meta: model.contextLength ? { vocab_type: 2, n_vocab: 32_000, n_ctx_train: model.contextLength } : null,
        };
      case 'lmstudio':
      case 'lmstudio-0.3':
        return { ...base, owned_by: 'organization_owner' };
    }
  };
  return { object: 'list', data: config.models.map(entry) };
}

/** The window the Anthropic routes report (and, given a `contextWindow`, enforce). */
function anthropicWindow(config: LocalServerConfig, model: ScriptedModel): number | undefined {
  return config.contextWindow ?? model.contextLength;
}

/** Anthropic's `GET /v1/models`: `max_input_tokens` is each model's window. */
export function anthropicModels(config: LocalServerConfig): unknown {
  const { models } = config;
  return {
    data: models.map((model) => {
      const window = anthropicWindow(config, model);
      return {
        type: 'model',
        id: model.id,
        display_name: model.id,
        created_at: '2026-01-01T00:00:00Z',
        ...(window ? { max_input_tokens: window } : {}),
      };
    }),
    has_more: false,
    first_id: models[0]?.id ?? null,
    last_id: models.at(-1)?.id ?? null,
  };
}

/** Anthropic's `GET /v1/models/{id}`: `max_input_tokens` is the window. */
function anthropicModel(config: LocalServerConfig, id: string): Reply {
  const model = config.models.find((candidate) => candidate.id === id);
  if (!model) return { status: 404, body: { type: 'error', error: { type: 'not_found_error', message: `model: ${id}` } } };
  const window = anthropicWindow(config, model);
  return {
    status: 200,
    body: {
      type: 'model',
      id: model.id,
      display_name: model.id,
      created_at: '2026-01-01T00:00:00Z',
      ...(window ? { max_input_tokens: window, max_tokens: 64_000 } : {}),
    },
  };
}

/** The reply of a route of the personality's server, or null when it has no such route. */
function route(config: LocalServerConfig, method: string, path: string, body: Record<string, unknown>, anthropic: boolean): Reply {
  const llamaCpp = config.personality === 'llama.cpp';
  const lmStudio = config.personality === 'lmstudio' || config.personality === 'lmstudio-0.3';
  if (method === 'GET' && anthropic && path.startsWith('/v1/models/'))
    return anthropicModel(config, decodeURIComponent(path.slice('/v1/models/'.length)));
  if (method === 'GET' && path === '/props' && llamaCpp) return { status: 200, body: llamaCppProps(config) };
  if (method === 'POST' && path === '/tokenize' && llamaCpp) return llamaCppTokenize(body);
  if (method === 'GET' && path === '/api/v0/models' && lmStudio) return { status: 200, body: lmStudioV0(config) };
  if (method === 'GET' && path === '/api/v1/models' && config.personality === 'lmstudio') return { status: 200, body: lmStudioV1(config) };
  return null;
}

const routed = new Set(['/props', '/tokenize', '/api/v0/models', '/api/v1/models']);

/**
 * Answers a request for one of the local servers' routes, and says whether it did. A route the
 * personality's server does not have is left to the caller's 404.
 */
export async function serveLocalRoute(
  config: LocalServerConfig,
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
  anthropic: boolean,
): Promise<boolean> {
  if (!routed.has(path) && !(anthropic && path.startsWith('/v1/models/'))) return false;
  let body: Record<string, unknown> = {};
  if (request.method === 'POST') {
    try {
      body = JSON.parse(await readText(request)) as Record<string, unknown>;
    } catch {
      body = {};
    }
  }
  const reply = route(config, request.method ?? 'GET', path, body, anthropic);
  if (!reply) return false;
  response.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(reply.body));
  return true;
}

function readText(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}
