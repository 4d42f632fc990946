/*
 * The model doctor: checks a model (reachable, its window, native tool calls, reasoning, speed) and gives each problem
 * found with its fix.
 */

import type { ModelCheck, ProviderKind } from '../../shared/domain';
import { toErrorInfo, type ErrorInfo } from '../../shared/errors';
import type { ModelProvider, ModelRequest, ModelStreamEvent, ModelWindow } from '../agent/ports/model-provider';
import { toolsRefused } from './text-tool-provider';
import { withDeadline } from '../../shared/deadline';

/** How long each probe may take: listing and window questions answer in milliseconds; a generation may first load the model. */
export interface DoctorTimeouts {
  readonly reachMs: number;
  readonly windowMs: number;
  readonly generateMs: number;
}

export const defaultDoctorTimeouts: DoctorTimeouts = { reachMs: 5_000, windowMs: 3_000, generateMs: 90_000 };

export interface DoctorTarget {
  readonly providerId: string;
  readonly kind: ProviderKind;
  readonly baseUrl: string;
  /** A bare provider: one attempt per call, native tools. */
  readonly provider: ModelProvider;
  readonly model: string;
}

type Problem = ModelCheck['problems'][number];

const textTools = 'the app gives this model its tools as text tool calls.';
const TextTools = 'The app gives this model its tools as text tool calls.';
type Server = 'ollama' | 'llama.cpp' | 'lmstudio' | 'vllm' | 'anthropic' | 'unknown';

/** The small tool of the probe, and the question that needs it. */
const probeTool = {
  name: 'get_time',
  description: 'Returns the current time in a city.',
  inputSchema: { type: 'object', properties: { city: { type: 'string', description: 'The city' } }, required: ['city'] },
};
/** The questions of the probes: the tool probe's, and the speed probe's. */
export const probeQuestions = {
  tool: 'What time is it in Paris? Call the get_time tool to find out.',
  speed: 'Count from 1 to 40 in words, separated by commas, and write nothing else.',
} as const;

/** The answer room of each probe: enough for a model that reasons before it calls. */
const probeAnswerTokens = 2048;

/** What one probe request brought back. */
interface Probe {
  readonly events: ModelStreamEvent[];
  readonly error: ErrorInfo | null;
  /** From the first piece of the answer to its end, in ms; null when nothing came. */
  readonly answerMs: number | null;
}

async function probe(provider: ModelProvider, request: ModelRequest, signal: AbortSignal, now: () => number): Promise<Probe> {
  const events: ModelStreamEvent[] = [];
  let first: number | null = null;
  let last: number | null = null;
  let error: ErrorInfo | null = null;
  try {
    for await (const event of provider.stream(request, signal)) {
      events.push(event);
      if (event.type === 'text_delta' || event.type === 'reasoning_delta' || event.type === 'tool_call_arguments_delta') {
        first ??= now();
        last = now();
      }
      if (event.type === 'error') error = event.error;
    }
  } catch (caught) {
    // A provider never throws; a timeout that fired between events still ends here.
    error = toErrorInfo(caught);
  }
  if (signal.aborted && error === null) error = { code: 'model_timeout', message: 'no complete answer in time' };
  return { events, error, answerMs: first === null || last === null ? null : Math.max(1, last - first) };
}

const textOf = (events: readonly ModelStreamEvent[]): string =>
  events.map((event) => (event.type === 'text_delta' ? event.text : '')).join('');

/** Which server it is, from the endpoint's kind, where its window figures came from, and the words of its errors. */
function serverOf(kind: ProviderKind, clues: readonly string[]): Server {
  if (kind === 'ollama') return 'ollama';
  if (kind === 'anthropic') return 'anthropic';
  const text = clues.join(' ');
  if (/llama\.cpp|--jinja/i.test(text)) return 'llama.cpp';
  if (/LM Studio/i.test(text)) return 'lmstudio';
  if (/max_model_len|enable-auto-tool-choice|vllm/i.test(text)) return 'vllm';
  if (/does not support tools/i.test(text)) return 'ollama';
  return 'unknown';
}

/** How a model's native tool calling went, from the probe. */
function toolsFinding(
  result: Probe,
  model: string,
  server: Server,
): { status: ModelCheck['tools']['status']; detail: string; problem?: Problem } {
  if (result.error) {
    const reason = toolsRefused(result.error);
    if (reason !== null) {
      const fixes: Record<Server, string> = {
        'llama.cpp': `llama.cpp needs --jinja for tool calls: start llama-server with --jinja. Until then ${textTools}`,
        ollama: `This Ollama model has no tool support: ${textTools} A model with "tools" among its capabilities (ollama show ${model}) calls them natively.`,
        vllm: `Start vLLM with --enable-auto-tool-choice and the --tool-call-parser of this model's family. Until then ${textTools}`,
        lmstudio: `Load a model LM Studio marks as trained for tool use. Until then ${textTools}`,
        anthropic: `Choose a model that supports tool use.`,
        unknown: `The server does not take tool definitions for this model: ${textTools}`,
      };
      return {
        status: 'refused',
        detail: reason,
        problem: { problem: `The server refuses tool definitions: ${reason}`, fix: fixes[server] },
      };
    }
    return {
      status: 'failed',
      detail: result.error.message,
      problem: {
        problem: `The tool probe failed: ${result.error.message}`,
        fix: 'Check again once the server answers; until then the app sends native tool calls and turns to text ones if the server refuses them.',
      },
    };
  }
  const ready = result.events.filter((event) => event.type === 'tool_call_ready');
  const call = ready[0];
  const stop = result.events.findLast((event) => event.type === 'done');
  if (!call && stop?.type === 'done' && stop.stopReason === 'max_tokens')
    return {
      status: 'failed',
      detail: `the answer reached its ${probeAnswerTokens}-token limit before any call (a model that reasons at length)`,
      problem: {
        problem: `The model used all ${probeAnswerTokens} tokens of the tool probe without calling the tool.`,
        fix: 'The app keeps native tool calls for it; check again, or choose the tool calls in this card.',
      },
    };
  if (!call) {
    const wrote = textOf(result.events);
    const asText = /<tool_call>|"name"\s*:\s*"get_time"|get_time\s*\(/.test(wrote);
    return {
      status: 'not_called',
      detail: asText
        ? 'the model wrote the call as text, and the server did not read it as one'
        : 'the model answered without calling the tool',
      problem: {
        problem: asText
          ? 'The model writes its tool calls as text that the server does not turn into calls.'
          : 'The model did not call the tool it was asked to call.',
        fix: `${TextTools}${server === 'llama.cpp' ? ' With --jinja, llama.cpp reads the calls of most model families.' : ''}`,
      },
    };
  }
  let city: unknown;
  try {
    city = (JSON.parse(call.arguments) as { city?: unknown }).city;
  } catch {
    city = undefined;
  }
  if (call.name !== probeTool.name || typeof city !== 'string' || city.length === 0) {
    const detail = `the call came back as ${call.name}(${call.arguments.slice(0, 200)})`;
    return {
      status: 'malformed',
      detail,
      problem: { problem: `The model's tool call was malformed: ${detail}.`, fix: TextTools },
    };
  }
  return { status: 'works', detail: `called ${call.name} with ${call.arguments}` };
}

function reasoningOf(probes: readonly Probe[]): ModelCheck['reasoning'] {
  const reasoning = probes.flatMap((result) => result.events).filter((event) => event.type === 'reasoning_delta');
  if (reasoning.length === 0) return probes.some((result) => result.error === null) ? 'none' : 'unchecked';
  return reasoning.some((event) => event.inline === true) ? 'inline' : 'field';
}

function tokensPerSecond(result: Probe): number | null {
  if (result.error || result.answerMs === null) return null;
  const usage = result.events.findLast((event) => event.type === 'usage');
  const characters = result.events.reduce(
    (sum, event) => sum + (event.type === 'text_delta' || event.type === 'reasoning_delta' ? event.text.length : 0),
    0,
  );
  const tokens = usage && usage.outputTokens > 0 ? usage.outputTokens : Math.ceil(characters / 4);
  if (tokens < 2) return null;
  return Math.round((tokens / result.answerMs) * 1000 * 10) / 10;
}

function windowProblems(window: ModelWindow | null, kind: ProviderKind, server: Server): Problem[] {
  // Ollama takes the window with each request and the built-in runtime loads the one the app chose: neither can differ.
  if (kind === 'ollama' || kind === 'anthropic' || kind === 'local') return [];
  if (window === null || window.loaded === null)
    return [
      {
        problem: 'The server does not say which window it loaded the model with.',
        fix: 'Set the window in Settings → Context window; until then the app assumes 8,192 tokens.',
      },
    ];
  if (window.loaded >= 8192) return [];
  const how: Record<Server, string> = {
    'llama.cpp': 'start llama-server with a larger -c (--ctx-size)',
    lmstudio: 'raise the context length when loading the model in LM Studio',
    vllm: 'start vLLM with a larger --max-model-len',
    ollama: '',
    anthropic: '',
    unknown: 'load the model with a larger context',
  };
  return [
    {
      problem: `The model runs with a window of ${window.loaded} tokens: long work is summarized often.`,
      fix: `If memory allows, ${how[server]}${window.trained ? ` (it was trained for ${window.trained})` : ''}.`,
    },
  ];
}

async function examine(
  target: DoctorTarget,
  options: { readonly now: () => number; readonly timeouts?: DoctorTimeouts },
  signal: AbortSignal,
): Promise<ModelCheck> {
  const timeouts = options.timeouts ?? defaultDoctorTimeouts;
  const startedAt = options.now();
  const within = (ms: number): AbortSignal => withDeadline(signal, ms);
  const base = { providerId: target.providerId, model: target.model, checkedAt: startedAt, source: 'doctor' as const };
  const problems: Problem[] = [];
  let listed: string[];
  try {
    listed = (await target.provider.listModels(within(timeouts.reachMs))).map((model) => model.id);
  } catch (error) {
    const info = toErrorInfo(error);
    return {
      ...base,
      durationMs: options.now() - startedAt,
      reachable: { ok: false, detail: info.message },
      window: { loaded: null, trained: null, detail: 'not checked' },
      tools: { status: 'unchecked', detail: 'not checked' },
      reasoning: 'unchecked',
      tokensPerSecond: null,
      protocol: 'native',
      problems: [
        {
          ...(target.kind === 'local'
            ? { problem: `The built-in runtime does not answer: ${info.message}`, fix: 'Check the model file in Settings → Models.' }
            : {
                problem: `The server does not answer: ${info.message}`,
                fix: `Start the server at ${target.baseUrl}, or correct the address in Settings.`,
              }),
        },
      ],
    };
  }
  if (!listed.includes(target.model))
    problems.push({
      problem: `The server does not list ${target.model}.`,
      fix: 'Pick a model the server lists, or load this one on the server.',
    });
  let window: ModelWindow | null = null;
  let windowDetail = 'the server does not say';
  try {
    window = (await target.provider.window?.(target.model, within(timeouts.windowMs))) ?? null;
    if (window) windowDetail = window.source;
  } catch (error) {
    windowDetail = `could not be read: ${toErrorInfo(error).message}`;
  }
  const toolProbe = await probe(
    target.provider,
    { model: target.model, messages: [{ role: 'user', content: probeQuestions.tool }], tools: [probeTool], maxTokens: probeAnswerTokens },
    within(timeouts.generateMs),
    options.now,
  );
  const speedProbe = await probe(
    target.provider,
    { model: target.model, messages: [{ role: 'user', content: probeQuestions.speed }], maxTokens: probeAnswerTokens },
    within(timeouts.generateMs),
    options.now,
  );
  const server = serverOf(target.kind, [
    windowDetail,
    window?.route ?? '',
    toolProbe.error?.message ?? '',
    speedProbe.error?.message ?? '',
  ]);
  const tools = toolsFinding(toolProbe, target.model, server);
  if (tools.problem) problems.push(tools.problem);
  problems.push(...windowProblems(window, target.kind, server));
  if (speedProbe.error)
    problems.push({
      problem: `A short answer failed: ${speedProbe.error.message}`,
      fix: 'Check that the model loads on the server (its log says why it does not), then check again.',
    });
  const speed = tokensPerSecond(speedProbe);
  if (speed !== null && speed < 3)
    problems.push({
      problem: `The model writes ${speed} tokens per second: a long answer takes minutes.`,
      fix: 'A smaller model or a smaller quantization is faster; so is running it on a GPU.',
    });
  return {
    ...base,
    durationMs: options.now() - startedAt,
    reachable: { ok: true, detail: `${listed.length} ${listed.length === 1 ? 'model' : 'models'} listed` },
    window: {
      loaded: window?.loaded ?? null,
      trained: window?.trained ?? null,
      detail: windowDetail,
      ...(window?.route ? { route: window.route } : {}),
    },
    tools: { status: tools.status, detail: tools.detail },
    reasoning: reasoningOf([toolProbe, speedProbe]),
    tokensPerSecond: speed,
    protocol: tools.status === 'works' || tools.status === 'failed' ? 'native' : 'text',
    problems,
  };
}

const clip = (text: string): string => (text.length > 2000 ? `${text.slice(0, 1999)}…` : text);

/** The check with every text within what is stored and shown: a server's message can be a whole HTML page. */
export function clipped(check: ModelCheck): ModelCheck {
  return {
    ...check,
    reachable: { ...check.reachable, detail: clip(check.reachable.detail) },
    window: {
      ...check.window,
      detail: clip(check.window.detail),
      ...(check.window.route === undefined ? {} : { route: clip(check.window.route) }),
    },
    tools: { ...check.tools, detail: clip(check.tools.detail) },
    problems: check.problems.slice(0, 20).map((item) => ({ problem: clip(item.problem), fix: clip(item.fix) })),
  };
}

function refusal(known: ModelCheck | null, target: { providerId: string; model: string }, reason: string, at: number): ModelCheck {
  const problem = { problem: `The server refuses tool definitions: ${reason}`, fix: TextTools };
  if (known)
    return {
      ...known,
      tools: { status: 'refused', detail: reason },
      protocol: 'text',
      problems: [...known.problems.filter((item) => !item.problem.startsWith('The server refuses')), problem].slice(0, 20),
    };
  return {
    providerId: target.providerId,
    model: target.model,
    checkedAt: at,
    durationMs: 0,
    source: 'turn',
    reachable: { ok: true, detail: 'answered a turn' },
    window: { loaded: null, trained: null, detail: 'not checked' },
    tools: { status: 'refused', detail: reason },
    reasoning: 'unchecked',
    tokensPerSecond: null,
    protocol: 'text',
    problems: [problem],
  };
}

/**
 * Checks one model of an endpoint: whether the server answers, the window it loaded and was trained for, whether native
 * tool calling works (a real request with a small tool), how reasoning arrives, and its speed on a short answer; for each
 * problem, the fix in plain words. Every probe has its own timeout; nothing here throws.
 */
export async function checkModel(
  target: DoctorTarget,
  options: { readonly now: () => number; readonly timeouts?: DoctorTimeouts },
  signal: AbortSignal,
): Promise<ModelCheck> {
  return clipped(await examine(target, options, signal));
}

/** What a turn found when the server refused tool definitions, added to what a check found (or all that is known). */
export function refusedInTurn(
  known: ModelCheck | null,
  target: { providerId: string; model: string },
  reason: string,
  at: number,
): ModelCheck {
  return clipped(refusal(known, target, reason, at));
}
