/* The tool calls' part of the session view's fold: a call requested, started, printing, and finished. */

import { BugError } from '../errors';
import type { RuntimeEvent } from '../events';
import type { EntryPlace } from './entry-place';
import { injectionOnFinish } from './guards';
import { liveOutputLimit, type SessionView, type ViewToolCall } from './types';
import { updateMessage, updateToolCall } from './updates';

export type ToolCallEvent = Extract<
  RuntimeEvent,
  { type: 'tool_call_requested' | 'tool_call_started' | 'tool_output' | 'tool_call_finished' | 'problems_reported' }
>;

/** A call as it is first shown: requested, with nothing printed yet. */
function requestedCall(event: Extract<ToolCallEvent, { type: 'tool_call_requested' }>): ViewToolCall {
  return {
    id: event.toolCallId,
    tool: event.tool,
    summary: event.summary,
    input: event.input,
    risk: event.risk,
    riskReason: event.riskReason,
    preview: event.preview ?? null,
    state: 'requested',
    output: '',
    outputTotal: 0,
    outputEpoch: 0,
    outputBytes: 0,
    truncated: false,
    latencyMs: null,
  };
}

/** The view after one event of a tool call. */
export function applyToolCallEvent(view: SessionView, event: ToolCallEvent, { seq }: EntryPlace): SessionView {
  switch (event.type) {
    case 'tool_call_requested': {
      const call = requestedCall(event);
      // Calls are journalled once the response has finished streaming.
      return updateMessage(
        view,
        (message) => message.id === event.messageId,
        (message) => ({
          ...message,
          state: message.state === 'streaming' ? 'done' : message.state,
          toolCalls: [...message.toolCalls, call],
        }),
      );
    }
    case 'tool_call_started':
      return updateMessage(
        view,
        (message) => message.toolCalls.some((call) => call.id === event.toolCallId),
        (message) => ({
          ...message,
          state: message.state === 'streaming' ? 'done' : message.state,
          toolCalls: message.toolCalls.map((call) => (call.id === event.toolCallId ? { ...call, state: 'running' as const } : call)),
        }),
      );
    case 'tool_output':
      return updateToolCall(view, event.toolCallId, (call) => {
        const output = call.output + event.text;
        return {
          ...call,
          output: output.length > liveOutputLimit ? output.slice(output.length - liveOutputLimit) : output,
          outputTotal: call.outputTotal + event.text.length,
        };
      });
    case 'problems_reported': {
      const problems = { ...view.problems };
      for (const { path, errors, warnings } of event.report.checked) problems[path] = { errors, warnings };
      return { ...updateToolCall(view, event.toolCallId, (call) => ({ ...call, problems: event.report })), problems };
    }
    case 'tool_call_finished':
      return {
        ...updateToolCall(view, event.toolCallId, (call) => ({
          ...call,
          state: event.status,
          output: event.output,
          outputTotal: event.output.length,
          outputEpoch: call.outputEpoch + 1,
          outputBytes: event.outputBytes,
          truncated: event.truncated,
          latencyMs: event.latencyMs,
          finishedSeq: seq,
          ...injectionOnFinish(event),
        })),
        usage: { ...view.usage, toolCalls: view.usage.toolCalls + 1 },
      };
    default: {
      const unhandled: never = event;
      throw new BugError(`The tool calls' fold has no case for ${JSON.stringify(unhandled)}.`);
    }
  }
}
