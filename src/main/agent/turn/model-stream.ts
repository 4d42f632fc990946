/*
 * A model step's middle part: the request sent and its response streamed into the journal.
 */
import { BugError, type ErrorInfo } from '../../../shared/errors';
import { tokensOf, type CallTokens } from '../ports/accounting';
import type { ThinkingBlock, ToolCallRequest } from '../ports/model-provider';
import type { LoopState, StreamedResponse } from './loop-state';
import type { StepContext } from './step-context';

type StreamState = Extract<LoopState, { kind: 'stream' }>;

/**
 * The second part of a model step: the request is sent and its response streamed into the journal as it arrives (text
 * and reasoning per frame, the calls being written shown live and journalled once whole). It always goes on to settle
 * the response, whole or cut short by an error or Stop.
 */
export async function streamResponse(context: StepContext, state: StreamState): Promise<LoopState> {
  const { setup, services, writer } = context;
  const { turnId } = setup;
  const { model, sent } = state.request;
  const messageId = services.newId();
  const startedAt = services.clock.now();
  let started = false;
  const startMessage = (): void => {
    if (started) return;
    started = true;
    writer.journal([{ type: 'assistant_message_started', turnId, messageId }]);
  };
  let text = '';
  let attempts = 1;
  let usage: CallTokens = { inputTokens: 0, outputTokens: 0 };
  let refused: StreamedResponse['refused'] = {};
  let outcome: { kind: 'done' } | { kind: 'error'; error: ErrorInfo } = {
    kind: 'error',
    error: { code: 'model_bad_response', message: 'The model stream ended without finishing.' },
  };
  const calls: ToolCallRequest[] = [];
  const thinking: ThinkingBlock[] = [];

  for await (const event of model.provider.stream(sent.request, writer.signal)) {
    switch (event.type) {
      case 'text_delta':
      case 'reasoning_delta':
        if (event.text.length === 0) break;
        startMessage();
        if (event.type === 'text_delta') text += event.text;
        writer.stream({ type: event.type, turnId, messageId, text: event.text });
        break;
      case 'reasoning_block':
        thinking.push(event.block);
        break;
      case 'usage':
        usage = tokensOf(event);
        break;
      case 'retry_scheduled':
        attempts = event.attempt + 1;
        writer.journal([{ type: 'model_retry_scheduled', turnId, attempt: event.attempt, delayMs: event.delayMs, error: event.error }]);
        writer.flush();
        break;
      case 'tool_call_ready':
        // Servers reuse ids such as call_0 across responses; the runtime gives each call its own.
        calls.push({ id: `call_${services.newId()}`, name: event.name, arguments: event.arguments });
        break;
      // Shown as the model writes them, so a long file or command is seen coming; journalled once complete.
      case 'tool_call_started':
        startMessage();
        writer.draft({ type: 'tool_call_draft_started', turnId, messageId, index: event.index, callId: event.id, tool: event.name });
        break;
      case 'tool_call_arguments_delta':
        if (event.delta.length === 0) break;
        startMessage();
        writer.draft({ type: 'tool_call_draft_delta', turnId, messageId, index: event.index, callId: event.id, text: event.delta });
        break;
      case 'done':
        outcome = { kind: 'done' };
        break;
      case 'error':
        outcome = { kind: 'error', error: event.error };
        refused = {
          ...(event.window === undefined ? {} : { window: event.window }),
          ...(event.promptTokens === undefined ? {} : { promptTokens: event.promptTokens }),
        };
        break;
      default: {
        const unhandled: never = event;
        throw new BugError(`Unhandled model event ${JSON.stringify(unhandled)}`);
      }
    }
  }
  writer.dropDrafts();
  const response = { messageId, started, startedAt, text, calls, thinking, usage, attempts, outcome, refused };
  return { kind: 'settle', request: state.request, response };
}
