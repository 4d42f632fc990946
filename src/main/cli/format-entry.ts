/*
 * One readable line per journal entry, as the terminal runner prints a turn's events.
 */

import { BugError } from '../../shared/errors';
import type { JournalEntry, RuntimeEvent } from '../../shared/events';

const short = (value: unknown, max = 160): string => {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max)}…` : text;
};

/** An event's fields but its type, shortened. */
const fields = (event: RuntimeEvent): string => short(Object.fromEntries(Object.entries(event).filter(([key]) => key !== 'type')));

/** How much of a request's beginning the one before it sent already. */
const prefixWords = (tokens: number, shared: number | undefined): string =>
  shared === undefined
    ? 'first on its line: all read'
    : `${shared} unchanged from the request before (${tokens > 0 ? Math.round((shared / tokens) * 100) : 0}%), ${tokens - shared} to read again`;

/** One readable line per journal entry, for the terminal. */
export function formatEntry(entry: JournalEntry): string {
  const event = entry.event;
  const head = `[${String(entry.seq).padStart(4)}] ${event.type}`;
  switch (event.type) {
    case 'user_message':
      return `${head}: ${short(event.text)}`;
    case 'text_delta':
    case 'reasoning_delta':
    case 'tool_output':
      return `${head}: ${short(event.text)}`;
    case 'status_changed':
      return `${head}: ${event.status}`;
    case 'run_started':
      return `${head}: ${event.model.model} (${event.providerKind})`;
    case 'model_call_finished':
      return `${head}: ${event.inputTokens} in${event.cacheReadTokens !== undefined ? ` (${event.cacheReadTokens} from the server's cache)` : ''}${event.cacheWriteTokens ? ` (${event.cacheWriteTokens} written to it)` : ''}, ${event.outputTokens} out, ${Math.round(event.latencyMs)} ms${event.costUsd ? `, $${event.costUsd.toFixed(4)}` : ''}`;
    case 'model_retry_scheduled':
      return `${head}: attempt ${event.attempt} failed (${event.error.message}); retrying in ${event.delayMs} ms`;
    case 'model_fallback_used':
      return `${head}: ${event.message}`;
    case 'tool_call_requested':
      return `${head}: ${event.tool} ${short(event.summary)} [${event.risk}]`;
    case 'tool_call_finished':
      return `${head}: ${event.status} in ${Math.round(event.latencyMs)} ms: ${short(event.output)}`;
    case 'approval_requested':
      return `${head}: ${event.tool} ${short(event.summary)} [${event.risk}] ${event.reason}${
        event.escalation
          ? ` ESCALATION: asks for ${event.escalation.kind === 'network' ? 'network access' : 'no sandbox'} (${event.escalation.reason})`
          : ''
      }`;
    case 'approval_answered':
      return `${head}: ${event.decision}${event.timedOut ? ' (timed out)' : ''}${event.reason ? ` (${event.reason})` : ''}`;
    case 'plan_proposed':
      return `${head}: ${event.purpose} (${event.steps.length} steps, max ${event.maxRisk}${event.needsApproval ? ', needs approval' : ''})`;
    case 'context_measured':
      return `${head}: ${event.tokens} of ${event.window} tokens (window: ${event.windowDetail}; ${event.counting}${event.shortened > 0 ? `; ${event.shortened} old results shortened` : ''}); ${prefixWords(event.tokens, event.shared)}`;
    case 'context_compacted':
      return `${head}: ${event.method === 'shortened' ? `${event.cuts?.length ?? 0} older results shortened` : `${event.messages} messages summarized${event.continued ? ' as a continuation' : ''}${event.cuts?.length ? `, ${event.cuts.length} older results shortened` : ''}`} (${event.trigger}, by ${event.method}), about ${event.tokensBefore} → ${event.tokensAfter} tokens${event.note ? `: ${event.note}` : ''}`;
    case 'context_truncated':
      return `${head}: ${event.message}`;
    case 'check_ran':
      return `${head}: ${event.result.command}: ${event.result.status}${event.result.exitCode === null ? '' : ` (exit ${event.result.exitCode})`}`;
    case 'problems_reported':
      return `${head}: ${event.report.errors} errors, ${event.report.warnings} warnings in ${event.report.checked.map((file) => file.path).join(', ') || 'no file checked'}${event.report.notes.length > 0 ? ` (${event.report.notes.join(' ')})` : ''}`;
    case 'memories_recalled':
      return `${head}: ${event.memories.length} ${event.memories.length === 1 ? 'memory' : 'memories'} given with the message${event.codeMap ? `, and a code map of ${event.codeMap.definitions} definitions from ${event.codeMap.files} files (about ${event.codeMap.tokens} tokens)` : ''}`;
    case 'run_finished':
      return `${head}: ${event.status}${event.error ? `: ${event.error.message}` : ''}`;
    // The rest are shown as their fields.
    case 'autonomy_changed':
    case 'branch_started':
    case 'checkpoint_recovered':
    case 'assistant_message_started':
    case 'plan_answered':
    case 'budget_reached':
    case 'budget_answered':
    case 'trust_grant_created':
    case 'tool_call_started':
    case 'tool_result_held':
    case 'tool_result_reviewed':
    case 'tool_retry_scheduled':
    case 'checkpoint_saved':
    case 'files_snapshotted':
    case 'files_restored':
    case 'git_committed':
    case 'worktree_created':
    case 'worktree_brought_back':
    case 'worktree_removed':
    case 'session_imported':
    case 'message_queued':
    case 'queue_cleared':
      return `${head} ${fields(event)}`;
    default: {
      // The journal is parsed by its schema before it is printed, so only a type left out above lands here.
      const unhandled: never = event;
      throw new BugError(`No line for ${JSON.stringify(unhandled)}.`);
    }
  }
}
