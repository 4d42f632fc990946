import type { ApprovalDecision } from '../../shared/domain';
import { NotFoundError } from '../../shared/errors';
import type { JournalEntry } from '../../shared/events';
import type { ChatMessage, ToolCallRequest } from './model-provider';
import type { PriorCall } from './tool-step';
import type { ResumePoint } from './turn';

/* What a session's journal says about where it stands: read when branching, restoring and recovering. */

/** Where a checkpoint was journalled on the shown line; not found when it is on another line or none. */
export function checkpointRow(entries: readonly JournalEntry[], checkpointId: string): number {
  const index = entries.findIndex((entry) => entry.event.type === 'checkpoint_saved' && entry.event.checkpointId === checkpointId);
  if (index < 0) throw new NotFoundError('Checkpoint', checkpointId);
  return index;
}

/** The turn that started and never finished on this line, if any. */
export function openTurn(entries: readonly JournalEntry[]): string | null {
  for (let index = entries.length - 1; index >= 0; index -= 1) {
    const event = entries[index]?.event;
    if (event?.type === 'run_finished' || event?.type === 'branch_started') return null;
    if (event?.type === 'run_started') return event.turnId;
  }
  return null;
}

/** A message queued and neither started nor cleared when the app stopped. */
export function leftoverQueue(entries: readonly JournalEntry[]): string | null {
  for (let index = entries.length - 1; index >= 0; index -= 1) {
    const event = entries[index]?.event;
    if (event?.type === 'queue_cleared' || event?.type === 'branch_started') return null;
    if (event?.type === 'message_queued') return event.text;
  }
  return null;
}

/** What an interrupted turn still has to do: the calls of its last response without a result, and what the journal says of each. */
export function resumePoint(history: readonly ChatMessage[], entries: readonly JournalEntry[], turnId: string): ResumePoint {
  const last = history.at(-1);
  if (!last || last.role === 'user') return { calls: [], prior: new Map(), purpose: '', answered: false };
  if (last.role === 'assistant' && !last.toolCalls?.length) return { calls: [], prior: new Map(), purpose: '', answered: true };
  let index = history.length - 1;
  while (index >= 0 && history[index]?.role === 'tool') index -= 1;
  const response = history[index];
  if (response?.role !== 'assistant' || !response.toolCalls) return { calls: [], prior: new Map(), purpose: '', answered: false };
  const answered = new Set(history.slice(index + 1).flatMap((message) => (message.role === 'tool' ? [message.toolCallId] : [])));
  const calls: ToolCallRequest[] = response.toolCalls.filter((call) => !answered.has(call.id));
  const prior = new Map<string, PriorCall>();
  for (const call of calls) {
    let started = false;
    let output = '';
    let finished: PriorCall['finished'];
    let gate: { approvalId: string; answer: { decision: ApprovalDecision; reason?: string } | null } | undefined;
    for (const { event } of entries) {
      if (!('turnId' in event) || event.turnId !== turnId || !('toolCallId' in event) || event.toolCallId !== call.id) continue;
      if (event.type === 'tool_call_started') started = true;
      else if (event.type === 'tool_output') output += event.text;
      else if (event.type === 'tool_call_finished') finished = { output: event.output, isError: event.status !== 'succeeded' };
      else if (event.type === 'approval_requested') gate = { approvalId: event.approvalId, answer: null };
      else if (event.type === 'approval_answered' && gate?.approvalId === event.approvalId)
        gate = {
          approvalId: event.approvalId,
          answer: event.reason ? { decision: event.decision, reason: event.reason } : { decision: event.decision },
        };
    }
    prior.set(call.id, finished ? { finished } : started ? { interruptedOutput: output } : gate ? { gate } : {});
  }
  return { calls, prior, purpose: response.content.trim().split('\n')[0]?.slice(0, 300) ?? '', answered: false };
}

/**
 * The file snapshot that holds a checkpoint's files: the newest one taken before the next
 * checkpoint, or, when the agent changed nothing until later, the first one after (the files were
 * as it found them). Null when no files were ever saved on this line.
 */
export function snapshotAt(entries: readonly JournalEntry[], checkpointId: string): string | null {
  const index = checkpointRow(entries, checkpointId);
  const next = entries.findIndex((entry, position) => position > index && entry.event.type === 'checkpoint_saved');
  const end = next < 0 ? entries.length : next;
  for (let position = end - 1; position >= 0; position -= 1) {
    const event = entries[position]?.event;
    if (event?.type === 'files_snapshotted') return event.snapshotId;
  }
  for (let position = end; position < entries.length; position += 1) {
    const event = entries[position]?.event;
    if (event?.type === 'files_snapshotted') return event.snapshotId;
  }
  return null;
}
