import { isDeepStrictEqual } from 'node:util';
import type { Database } from 'better-sqlite3';
import { runtimeEventSchema, type JournalEntry } from '../src/shared/events';
import { branchLine } from '../src/main/agent/history/branching';
import { replayHead } from '../src/main/agent/history/head-fold';
import {
  headFormatVersion,
  resumeStateSchema,
  type CallStanding,
  type ResumeState,
  type SessionHead,
} from '../src/main/agent/ports/session-head';

/*
 * The check that a session's stored heads always say what its journal says: for every branch, its
 * head (on the session's row for the shown branch, on the branch's row for the others) against (1) a replay of its line through the fold and (2) an independent reading
 * of the journal, written here without the fold; and the session's status against its last
 * `status_changed`. It reads the database directly, as a second program would.
 */

interface HeadRow {
  head_checkpoint: string | null;
  open_turn: string | null;
  queued: string | null;
  resume: string | null;
  last_seq: number;
  head_format: number;
}

interface BranchRow extends HeadRow {
  id: string;
  parent_id: string | null;
  fork_seq: number;
  checkpoint_id: string | null;
  reason: string;
  created_at: number;
  active_at: number;
}

function lineEntries(db: Database, sessionId: string, branches: readonly BranchRow[], branchId: string): JournalEntry[] {
  const line = branchLine(
    branches.map((branch) => ({
      id: branch.id,
      parentId: branch.parent_id,
      forkSeq: branch.fork_seq,
      checkpointId: branch.checkpoint_id,
      reason: 'start' as const,
      createdAt: branch.created_at,
      activeAt: branch.active_at,
    })),
    branchId,
  );
  const rows = db.prepare<[string, string, number, number], { seq: number; at: number; payload: string }>(
    'SELECT seq, at, payload FROM journal WHERE session_id = ? AND branch = ? AND seq > ? AND seq <= ? ORDER BY seq',
  );
  const entries: JournalEntry[] = [];
  let lower = -1;
  for (const { branchId: owner, upTo } of line) {
    for (const row of rows.all(sessionId, owner, lower, upTo)) {
      entries.push({ sessionId, seq: row.seq, at: row.at, event: runtimeEventSchema.parse(JSON.parse(row.payload)) });
    }
    lower = upTo;
  }
  return entries;
}

/** Where a line stands, read straight off its journal by scanning back, without the fold. */
export function readHead(entries: readonly JournalEntry[]): SessionHead {
  const events = entries.map((entry) => entry.event);
  const lastIndex = (test: (index: number) => boolean): number => {
    for (let index = events.length - 1; index >= 0; index -= 1) if (test(index)) return index;
    return -1;
  };
  const checkpointAt = lastIndex((index) => ['checkpoint_saved', 'branch_started'].includes(events[index]?.type ?? ''));
  const checkpointEvent = events[checkpointAt];
  const checkpointId =
    checkpointEvent?.type === 'checkpoint_saved' || checkpointEvent?.type === 'branch_started' ? checkpointEvent.checkpointId : null;
  const turnAt = lastIndex((index) => ['run_started', 'run_finished', 'branch_started'].includes(events[index]?.type ?? ''));
  const turnEvent = events[turnAt];
  const openTurn = turnEvent?.type === 'run_started' ? turnEvent.turnId : null;
  const queueAt = lastIndex((index) => ['message_queued', 'queue_cleared', 'branch_started'].includes(events[index]?.type ?? ''));
  const queueEvent = events[queueAt];
  const queued = queueEvent?.type === 'message_queued' ? queueEvent.text : null;
  const lastSeq = entries.at(-1)?.seq ?? -1;
  if (openTurn === null) return { checkpointId, openTurn, queued, resume: null, lastSeq };

  // The turn began at its first run_started that was not a resumption, after the last fork.
  const began = lastIndex((index) => {
    const event = events[index];
    return event?.type === 'run_started' && event.turnId === openTurn && !event.resumed;
  });
  const response = lastIndex(
    (index) => index > began && (events[index]?.type === 'assistant_message_started' || events[index]?.type === 'tool_call_requested'),
  );
  const responseEvent = events[response];
  if (began < 0 || responseEvent?.type !== 'tool_call_requested')
    return { checkpointId, openTurn, queued, resume: { at: 'model' }, lastSeq };
  const { messageId } = responseEvent;
  const firstIndex = events.findIndex(
    (event, index) => index > began && event.type === 'tool_call_requested' && event.messageId === messageId,
  );
  const after = entries.slice(firstIndex);
  const calls: CallStanding[] = after.flatMap(({ event }) => {
    if (event.type !== 'tool_call_requested' || event.messageId !== messageId) return [];
    let call: CallStanding = { toolCallId: event.toolCallId, state: 'requested' };
    for (const { event: later } of after) {
      // An import takes no gate nor answer of the file: the call stands as requested again.
      if (later.type === 'session_imported' && (call.state === 'gate' || call.state === 'answered'))
        call = { toolCallId: call.toolCallId, state: 'requested' };
      if (!('toolCallId' in later) || later.toolCallId !== event.toolCallId) continue;
      if (later.type === 'approval_requested') call = { ...call, state: 'gate', approvalId: later.approvalId };
      else if (later.type === 'approval_answered') {
        const answer = later.reason ? { decision: later.decision, reason: later.reason } : { decision: later.decision };
        call = { ...call, state: 'answered', answer };
      } else if (later.type === 'tool_call_started') call = { ...call, state: 'running' };
      else if (later.type === 'tool_call_finished') call = { toolCallId: call.toolCallId, state: 'finished' };
    }
    return [call];
  });
  let plan: Extract<ResumeState, { at: 'tools' }>['plan'] = null;
  for (const { event } of after) {
    if (event.type === 'plan_proposed') plan = { planId: event.planId, state: event.needsApproval ? 'waiting' : 'ran' };
    if (event.type === 'session_imported' && (plan?.state === 'waiting' || plan?.state === 'approved')) plan = null;
    if (event.type === 'plan_answered' && plan?.planId === event.planId) {
      const state = event.answer === 'approve' ? 'approved' : event.answer === 'reject' ? 'rejected' : 'refined';
      plan = { planId: event.planId, state, ...(event.text ? { text: event.text } : {}) };
    }
  }
  const firstSeq = entries[firstIndex]?.seq ?? -1;
  return { checkpointId, openTurn, queued, resume: { at: 'tools', messageId, firstSeq, plan, calls }, lastSeq };
}

/**
 * The head checkpoint as the runtime found it before heads existed: the newest `checkpoint_saved` of
 * the line, forks not counted. The one known difference: a fork from a checkpoint that was missing
 * says so (null), where that reading names the missing one again; both then rebuild the
 * conversation from the journal. `forkWithout` marks that case.
 */
function checkpointAsBefore(entries: readonly JournalEntry[]): { checkpointId: string | null; forkWithout: boolean } {
  let forkWithout = false;
  for (let index = entries.length - 1; index >= 0; index -= 1) {
    const event = entries[index]?.event;
    if (event?.type === 'checkpoint_saved') return { checkpointId: event.checkpointId, forkWithout };
    if (event?.type === 'branch_started' && event.checkpointId === null) forkWithout = true;
  }
  return { checkpointId: null, forkWithout };
}

function storedHead(row: HeadRow): SessionHead {
  return {
    checkpointId: row.head_checkpoint,
    openTurn: row.open_turn,
    queued: row.queued,
    resume: row.resume === null ? null : resumeStateSchema.parse(JSON.parse(row.resume)),
    lastSeq: row.last_seq,
  };
}

/**
 * Every way a database's stored heads differ from what its journal says; empty when none. A head
 * not computed yet (format 0: a database from before heads, or an import) is skipped, since the
 * store replays it on first use.
 */
export function headMismatches(db: Database, onlySession?: string): string[] {
  const problems: string[] = [];
  const sessions = db.prepare<[], HeadRow & { id: string; status: string; active_branch: string }>('SELECT * FROM sessions').all();
  const branchRows = db.prepare<[string], BranchRow>('SELECT * FROM branches WHERE session_id = ?');
  const lastStatus = db.prepare<[string], { payload: string }>(
    "SELECT payload FROM journal WHERE session_id = ? AND type = 'status_changed' ORDER BY seq DESC LIMIT 1",
  );
  for (const session of sessions) {
    if (onlySession !== undefined && session.id !== onlySession) continue;
    const branches = branchRows.all(session.id);
    for (const branch of branches) {
      // The shown branch's head is on the session's row; another's on its own row, kept when it was left.
      const row: HeadRow = branch.id === session.active_branch ? session : branch;
      if (row.head_format === 0) continue;
      if (row.head_format !== headFormatVersion) problems.push(`${session.id}/${branch.id}: head format ${row.head_format}`);
      const entries = lineEntries(db, session.id, branches, branch.id);
      const stored = storedHead(row);
      const replayed = replayHead(entries);
      const read = readHead(entries);
      if (!isDeepStrictEqual(stored, replayed)) {
        problems.push(`${session.id}/${branch.id}: stored head ${JSON.stringify(stored)} but the replay says ${JSON.stringify(replayed)}`);
      }
      const before = checkpointAsBefore(entries);
      if (before.checkpointId !== replayed.checkpointId && !before.forkWithout) {
        problems.push(
          `${session.id}/${branch.id}: the head checkpoint is ${replayed.checkpointId} but the journal's newest is ${before.checkpointId}`,
        );
      }
      if (!isDeepStrictEqual(replayed, read)) {
        problems.push(
          `${session.id}/${branch.id}: the replay says ${JSON.stringify(replayed)} but the journal reads ${JSON.stringify(read)}`,
        );
      }
    }
    const status = lastStatus.get(session.id);
    const expected = status ? (JSON.parse(status.payload) as { status: string }).status : 'idle';
    if (session.status !== expected) problems.push(`${session.id}: status ${session.status} but the journal's last status is ${expected}`);
  }
  return problems;
}
