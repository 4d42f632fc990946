import { probeQuestions } from '../../src/main/providers/model-doctor';
import type { ScriptedTurn } from './script';

/** How the served model answers the model doctor's probes. */
export interface ProbeBehaviour {
  /** How its reasoning arrives: a field of its own, `<think>` tags in the answer, or none (the default). */
  readonly reasoning?: 'field' | 'inline' | 'none';
  /** Answers the tool probe in prose, without calling the tool. */
  readonly ignoresTools?: boolean;
  /** Answers every probe with this text and nothing else. */
  readonly garbage?: string;
  /** Wait between chunks: a slow model. */
  readonly chunkDelayMs?: number;
  /** Closes the connection in the middle of each answer. */
  readonly drops?: boolean;
  /** Reasons until its answer's limit, calling nothing: a model that thinks at length. */
  readonly reasonsPastLimit?: boolean;
  /** Calls the tool with arguments that do not fit it. */
  readonly wrongArguments?: boolean;
}

const words =
  'one, two, three, four, five, six, seven, eight, nine, ten, eleven, twelve, thirteen, fourteen, fifteen, sixteen, seventeen, eighteen, nineteen, twenty';

/** The last user message of an OpenAI or Ollama chat body. */
function lastUserText(body: Record<string, unknown>): string | null {
  const messages = Array.isArray(body['messages']) ? (body['messages'] as { role?: unknown; content?: unknown }[]) : [];
  const last = messages.at(-1);
  return last?.role === 'user' && typeof last.content === 'string' ? last.content : null;
}

/**
 * The answer to one of the model doctor's probes, or null when the request is not one. A real model answers the probes
 * like any prompt; the scripted one answers them from `behaviour` so they never take the turns a test queued.
 */
export function probeTurn(body: Record<string, unknown>, behaviour: ProbeBehaviour = {}): ScriptedTurn | null {
  const question = lastUserText(body);
  if (question !== probeQuestions.tool && question !== probeQuestions.speed) return null;
  const pace = {
    ...(behaviour.chunkDelayMs === undefined ? {} : { chunkDelayMs: behaviour.chunkDelayMs }),
    ...(behaviour.drops ? { fault: { kind: 'drop' as const, afterChunks: 3 } } : {}),
  };
  if (behaviour.garbage !== undefined) return { steps: [{ kind: 'text', text: behaviour.garbage }], ...pace };
  if (behaviour.reasonsPastLimit)
    return { steps: [{ kind: 'reasoning', text: 'Let me think about time zones. '.repeat(40) }], stoppedAtLimit: true, ...pace };
  const thought = 'The person wants an answer.';
  const reasoning: ScriptedTurn['steps'] =
    behaviour.reasoning === 'field'
      ? [{ kind: 'reasoning', text: thought }]
      : behaviour.reasoning === 'inline'
        ? [{ kind: 'text', text: `<think>${thought}</think>\n` }]
        : [];
  if (question === probeQuestions.speed) return { steps: [...reasoning, { kind: 'text', text: words, chunkSize: 6 }], ...pace };
  if (behaviour.ignoresTools) return { steps: [...reasoning, { kind: 'text', text: 'It is probably noon in Paris.' }], ...pace };
  const args = behaviour.wrongArguments ? '{"town": 7}' : '{"city": "Paris"}';
  return { steps: [...reasoning, { kind: 'tool_call', id: 'call_probe', name: 'get_time', arguments: args }], ...pace };
}
