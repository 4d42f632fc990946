/* The messages' part of the session view's fold: what the person sent, and the model's responses as they stream. */

import { BugError } from '../errors';
import type { RuntimeEvent } from '../events';
import type { EntryPlace } from './entry-place';
import type { SessionView } from './types';
import { updateMessage } from './updates';

export type MessageEvent = Extract<RuntimeEvent, { type: 'user_message' | 'assistant_message_started' | 'text_delta' | 'reasoning_delta' }>;

/** The view after one event of a message. */
export function applyMessageEvent(view: SessionView, event: MessageEvent, { seq }: EntryPlace): SessionView {
  switch (event.type) {
    case 'user_message':
      return {
        ...view,
        messages: [
          ...view.messages,
          {
            id: event.messageId,
            seq,
            turnId: event.turnId,
            role: 'user',
            text: event.text,
            reasoning: '',
            state: 'done',
            toolCalls: [],
            ...(event.attachments && event.attachments.length > 0 ? { attachments: event.attachments } : {}),
          },
        ],
      };
    case 'assistant_message_started':
      return {
        ...view,
        retry: null,
        // A new response in the same turn means the earlier one has finished.
        messages: [
          ...view.messages.map((message) =>
            message.turnId === event.turnId && message.state === 'streaming' ? { ...message, state: 'done' as const } : message,
          ),
          {
            id: event.messageId,
            seq,
            turnId: event.turnId,
            role: 'assistant',
            text: '',
            reasoning: '',
            state: 'streaming',
            toolCalls: [],
            // The request measured last in this turn is the one this response answers.
            ...(view.context?.turnId === event.turnId && view.context.promptId ? { promptId: view.context.promptId } : {}),
          },
        ],
      };
    case 'text_delta':
      return updateMessage(
        view,
        (message) => message.id === event.messageId,
        (message) => ({ ...message, text: message.text + event.text }),
      );
    case 'reasoning_delta':
      return updateMessage(
        view,
        (message) => message.id === event.messageId,
        (message) => ({ ...message, reasoning: message.reasoning + event.text }),
      );
    default: {
      const unhandled: never = event;
      throw new BugError(`The messages' fold has no case for ${JSON.stringify(unhandled)}.`);
    }
  }
}
