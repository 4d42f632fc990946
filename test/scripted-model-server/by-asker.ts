/*
 * Answers by who asks: the parent session by its step, a sub-agent by the goal in its brief and its step. Sub-agents
 * running at once then get their own answers whatever order their requests arrive in.
 */
import type { RecordedRequest } from './recorded-request';
import { textTurn, type ScriptedTurn } from './script';

interface WireMessage {
  readonly role: string;
  readonly content?: unknown;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part: { text?: unknown }) => (typeof part?.text === 'string' ? part.text : '')).join('');
  return '';
}

/** Who sent a request (`parent`, or a sub-agent's goal), and how many answers it has had before. */
export function askerOf(request: RecordedRequest): { who: string; step: number } {
  const messages = (request.body['messages'] ?? []) as WireMessage[];
  const first = textOf(messages.find((message) => message.role === 'user')?.content);
  const goal = /^You are a sub-agent[\s\S]*?\nGoal: (.*)$/m.exec(first)?.[1];
  return { who: goal ?? 'parent', step: messages.filter((message) => message.role === 'assistant').length };
}

/** The text of every message a request carries, joined. */
export function requestText(request: RecordedRequest | undefined): string {
  return ((request?.body['messages'] ?? []) as WireMessage[]).map((message) => textOf(message.content)).join('\n');
}

/** The names of the tools a request offered. */
export function offeredTools(request: RecordedRequest | undefined): string[] {
  return ((request?.body['tools'] ?? []) as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
}

/** Scripts by asker; `route` is the server's `fallback`, used while nothing is queued. */
export class ScriptByAsker {
  scripts = new Map<string, ScriptedTurn[]>();

  readonly route = (request: RecordedRequest): ScriptedTurn => {
    const { who, step } = askerOf(request);
    return this.scripts.get(who)?.[step] ?? textTurn(`(nothing scripted for ${who} at step ${step})`);
  };

  /** The ids of the calls scripted for one asker, in order. */
  callIds(who: string): string[] {
    return (this.scripts.get(who) ?? []).flatMap((turn) => turn.steps.flatMap((step) => (step.kind === 'tool_call' ? [step.id] : [])));
  }
}

export function requestsOf(requests: readonly RecordedRequest[], who: string): RecordedRequest[] {
  return requests.filter((request) => askerOf(request).who === who);
}
