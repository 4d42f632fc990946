import type { JournalEntry, RuntimeEvent } from './events';
import { settleToolCallDrafts } from './tool-call-drafts';
import { applyGuardEvent, injectionOnFinish } from './session-view-guard';
import { applyBudgetEvent } from './session-view-budget';
import { liveOutputLimit, type MessageState, type SessionView, type ViewToolCall } from './session-view-types';
import { endTurn, interruption, updateMessage, updateToolCall } from './session-view-updates';

export * from './session-view-types';

export const emptySessionView: SessionView = {
  status: 'idle',
  messages: [],
  lastSeq: -1,
  activeTurnId: null,
  retry: null,
  pendingApproval: null,
  pendingReviews: [],
  pendingBudget: null,
  plan: null,
  queued: null,
  checkpoints: [],
  lastRestore: null,
  usage: { inputTokens: 0, outputTokens: 0, modelMs: 0, costUsd: 0, toolCalls: 0 },
  context: null,
  interrupted: null,
  warnings: [],
  drafting: null,
};

function applyEvent(view: SessionView, event: RuntimeEvent, at: number, seq: number): SessionView {
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
    case 'run_started':
      return { ...view, activeTurnId: event.turnId, retry: null, interrupted: null };
    case 'branch_started': {
      // A branch may begin in the middle of a turn: what was open there is closed, and nothing waits.
      const ended = endTurn(view, null, 'done');
      return { ...ended, status: 'idle', plan: null, queued: null, interrupted: null };
    }
    case 'checkpoint_recovered':
      return { ...view, warnings: [...view.warnings, event.message] };
    case 'status_changed':
      // The app stopped while this turn ran; what streamed so far stays, marked as cut short.
      if (event.status === 'interrupted') {
        const interrupted = interruption(view);
        return { ...endTurn(view, null, 'interrupted'), status: event.status, interrupted, pendingApproval: null };
      }
      return { ...view, status: event.status };
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
    case 'model_call_finished':
      return {
        ...view,
        usage: {
          ...view.usage,
          inputTokens: view.usage.inputTokens + event.inputTokens,
          outputTokens: view.usage.outputTokens + event.outputTokens,
          modelMs: view.usage.modelMs + event.latencyMs,
          costUsd: view.usage.costUsd + (event.costUsd ?? 0),
        },
      };
    case 'model_retry_scheduled':
      return { ...view, retry: { attempt: event.attempt, delayMs: event.delayMs, error: event.error } };
    case 'tool_call_requested': {
      const call: ViewToolCall = {
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
    case 'plan_proposed':
      return {
        ...view,
        plan: {
          planId: event.planId,
          purpose: event.purpose,
          steps: event.steps,
          maxRisk: event.maxRisk,
          state: event.needsApproval ? 'waiting' : 'running',
        },
      };
    case 'plan_answered': {
      if (view.plan?.planId !== event.planId) return view;
      const state = event.answer === 'approve' ? 'running' : event.answer === 'reject' ? 'rejected' : 'refining';
      return { ...view, plan: { ...view.plan, state } };
    }
    case 'approval_requested':
      return {
        ...updateToolCall(view, event.toolCallId, (call) => ({ ...call, state: 'waiting' })),
        pendingApproval: {
          approvalId: event.approvalId,
          toolCallId: event.toolCallId,
          tool: event.tool,
          summary: event.summary,
          input: event.input,
          risk: event.risk,
          reason: event.reason,
          preview: event.preview ?? null,
          escalation: event.escalation ?? null,
        },
      };
    case 'approval_answered':
      return { ...view, pendingApproval: view.pendingApproval?.approvalId === event.approvalId ? null : view.pendingApproval };
    case 'trust_grant_created':
      return view;
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
    case 'tool_result_held':
    case 'tool_result_reviewed':
    case 'tool_retry_scheduled':
      return applyGuardEvent(view, event, updateToolCall);
    case 'checkpoint_saved':
      return {
        ...view,
        checkpoints: [
          ...view.checkpoints,
          { id: event.checkpointId, turnId: event.turnId, seq: event.seq, source: event.source, at, filesChanged: null, journalSeq: seq },
        ],
      };
    case 'files_snapshotted':
      // A snapshot that changed nothing only marks where a turn's changes start.
      if (event.changed.length === 0) return view;
      return {
        ...view,
        checkpoints: view.checkpoints.map((checkpoint) =>
          checkpoint.id === event.checkpointId
            ? { ...checkpoint, filesChanged: [...(checkpoint.filesChanged ?? []), ...event.changed] }
            : checkpoint,
        ),
      };
    case 'files_restored':
      return {
        ...view,
        lastRestore: {
          restoreId: event.restoreId,
          safetySnapshotId: event.safetySnapshotId,
          written: event.written,
          deleted: event.deleted,
          kept: event.kept,
          refused: event.refused,
          undoOf: event.undoOf,
        },
      };
    case 'message_queued':
      return { ...view, queued: event.text };
    case 'queue_cleared':
      return { ...view, queued: null };
    case 'run_finished': {
      const finalState: MessageState = event.status === 'cancelled' ? 'cancelled' : event.status === 'failed' ? 'failed' : 'done';
      const ended = { ...endTurn(view, event.turnId, finalState), interrupted: null };
      if (!event.error) return ended;
      const messages = ended.messages.slice();
      const lastOfTurn = messages.findLastIndex((message) => message.turnId === event.turnId);
      const last = messages[lastOfTurn];
      if (last?.role === 'assistant' && last.toolCalls.length === 0)
        messages[lastOfTurn] = { ...last, state: finalState, error: event.error };
      else
        messages.push({
          id: `${event.turnId}-error`,
          seq,
          turnId: event.turnId,
          role: 'assistant',
          text: '',
          reasoning: '',
          state: finalState,
          toolCalls: [],
          error: event.error,
        });
      return { ...ended, messages };
    }
    case 'context_measured':
      return {
        ...view,
        context: {
          tokens: event.tokens,
          window: event.window,
          threshold: event.threshold,
          reserve: event.reserve,
          source: event.windowSource,
          detail: event.windowDetail,
          counting: event.counting,
          shortened: event.shortened,
          peak: Math.max(view.context?.peak ?? 0, event.tokens),
          turnId: event.turnId,
          ...(event.promptId ? { promptId: event.promptId } : {}),
        },
      };
    case 'context_compacted':
      return {
        ...view,
        messages: [
          ...view.messages,
          {
            id: event.compactionId,
            seq,
            turnId: event.turnId,
            role: 'compaction',
            text: event.summary,
            reasoning: '',
            state: 'done',
            toolCalls: [],
            compaction: {
              messages: event.messages,
              turns: event.turns,
              tokensBefore: event.tokensBefore,
              tokensAfter: event.tokensAfter,
              trigger: event.trigger,
              method: event.method,
              note: event.note ?? null,
            },
          },
        ],
      };
    case 'context_truncated':
    case 'model_fallback_used':
      return { ...view, warnings: [...view.warnings, event.message].slice(-20) };
    case 'session_imported':
      // A gate or plan the file left open is not answered here: resuming decides its calls again.
      return {
        ...view,
        pendingApproval: null,
        plan: view.plan?.state === 'waiting' ? null : view.plan,
        warnings: [...view.warnings, event.message].slice(-20),
      };
    case 'budget_reached':
    case 'budget_answered':
      return applyBudgetEvent(view, event);
    case 'autonomy_changed':
      // The audit view lists it; the status bar shows the session's autonomy from its row.
      return view;
    default: {
      const unhandled: never = event;
      return unhandled;
    }
  }
}

/** Folds journal entries into the view. Entries at or below `lastSeq` are ignored, so replays are idempotent. */
export function reduceSessionView(view: SessionView, entries: readonly JournalEntry[]): SessionView {
  let next = view;
  for (const entry of entries) {
    if (entry.seq <= next.lastSeq) continue;
    next = { ...applyEvent(next, entry.event, entry.at, entry.seq), lastSeq: entry.seq };
  }
  return settleToolCallDrafts(next);
}
