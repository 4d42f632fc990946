/*
 * After a restart: turns found running become interrupted, gates wait again, and a session resumes or is
 * discarded.
 */
import { busyStatuses } from '../../../shared/domain';
import { WorkbenchError } from '../../../shared/errors';
import type { RuntimeEvent } from '../../../shared/events';
import type { ConversationStore } from '../history/conversation-store';
import { openCallTools, resumeFrom } from '../turn/resume-point';
import type { SessionJournal } from '../history/session-journal';
import type { ResumeState } from '../ports/session-head';
import type { SessionStore } from '../ports/stores';
import type { Gates } from '../rules/gates';
import type { TurnScheduler } from './turn-scheduler';

export interface RecoveryOptions {
  readonly store: SessionStore;
  readonly turns: TurnScheduler;
  readonly conversations: ConversationStore;
  readonly journal: SessionJournal;
  readonly gates: Gates;
}

/**
 * After the app stopped in the middle of a turn: on start, a session that was planning or
 * executing becomes `interrupted` (the person resumes or discards it); one that was waiting at a
 * gate waits again at the same gate; a queued message is queued again. All of it is read from the
 * sessions' heads, not from their journals.
 */
export class Recovery {
  constructor(private readonly options: RecoveryOptions) {}

  /** Runs once at start. Returns the sessions that were found in the middle of a turn. */
  recoverInterrupted(): string[] {
    const { store, turns, journal } = this.options;
    const recovered: string[] = [];
    for (const session of store.list()) {
      if (turns.isBusy(session.id)) continue;
      const busy = busyStatuses.has(session.status);
      if (!busy && session.status !== 'interrupted') continue;
      const queued = journal.head(session.id).queued;
      if (queued !== null) turns.requeue(session.id, queued);
      if (!busy) continue;
      recovered.push(session.id);
      if (session.status === 'waiting_approval') {
        try {
          this.resumeTurn(session.id);
          continue;
        } catch (error) {
          console.error('Could not reopen the waiting approval:', error instanceof Error ? error.message : String(error));
        }
      }
      journal.append(session.id, [{ type: 'status_changed', status: 'interrupted' }]);
    }
    for (const session of store.list()) this.recoverSubAgents(session.id);
    return recovered;
  }

  /**
   * The sub-agents start-up recovery finds in the middle of a turn (they are not listed, so are looked for under each
   * session): one that waited at a gate waits there again, to be answered now, as a session would; one that was working
   * becomes interrupted, and goes on when the call that started it runs again (its session resumed).
   */
  private recoverSubAgents(sessionId: string): void {
    const { store, turns, journal } = this.options;
    for (const child of store.subAgents(sessionId)) {
      if (!turns.isBusy(child.id)) {
        let reopened = false;
        if (child.status === 'waiting_approval') {
          try {
            this.resumeTurn(child.id);
            reopened = true;
          } catch (error) {
            console.error('Could not reopen a sub-agent’s approval:', error instanceof Error ? error.message : String(error));
          }
        }
        if (!reopened && busyStatuses.has(child.status)) journal.append(child.id, [{ type: 'status_changed', status: 'interrupted' }]);
      }
      this.recoverSubAgents(child.id);
    }
  }

  /**
   * A session back from the archive, where start-up recovery did not look at it: its queued message is queued
   * again, and a turn it stopped in the middle of waits as `interrupted` for the person to resume or discard, even
   * one that stood at a gate (never resumed behind the person's back).
   */
  recoverRestored(sessionId: string): void {
    const { store, turns, journal } = this.options;
    const session = store.get(sessionId);
    if (!session || turns.isBusy(sessionId)) return;
    const busy = busyStatuses.has(session.status);
    if (!busy && session.status !== 'interrupted') return;
    const queued = journal.head(sessionId).queued;
    if (queued !== null) turns.requeue(sessionId, queued);
    if (busy) journal.append(sessionId, [{ type: 'status_changed', status: 'interrupted' }]);
  }

  /** Goes on with the turn the app stopped in the middle of, from its last checkpoint. */
  resume(sessionId: string): { turnId: string | null } {
    this.options.turns.assertIdle(sessionId);
    if (this.options.store.get(sessionId)?.status !== 'interrupted') {
      throw new WorkbenchError('invalid_state', 'Only an interrupted session can be resumed.');
    }
    return this.resumeTurn(sessionId);
  }

  /**
   * Picks up a sub-agent the app stopped in the middle of, when its parent's call runs again: start-up recovery does
   * not look at sub-agents (they are not listed), so it is done here. One that waited at a gate waits there again; one
   * that was working is marked interrupted and goes on from its last checkpoint. Returns whether a turn was started.
   */
  pickUp(sessionId: string): boolean {
    const { store, turns, journal } = this.options;
    const session = store.get(sessionId);
    if (!session || turns.isBusy(sessionId)) return false;
    if (session.status !== 'waiting_approval' && !busyStatuses.has(session.status) && session.status !== 'interrupted') return false;
    if (session.status !== 'waiting_approval' && session.status !== 'interrupted')
      journal.append(sessionId, [{ type: 'status_changed', status: 'interrupted' }]);
    return this.resumeTurn(sessionId).turnId !== null;
  }

  /** Ends the turn the app stopped in the middle of without going on; a queued message is handed back. */
  discard(sessionId: string): { queued: string | null } {
    const { store, turns, journal } = this.options;
    turns.assertIdle(sessionId);
    if (store.get(sessionId)?.status !== 'interrupted')
      throw new WorkbenchError('invalid_state', 'Only an interrupted session can be discarded.');
    const turnId = journal.head(sessionId).openTurn;
    const queued = turns.takeQueued(sessionId);
    const events: RuntimeEvent[] = [
      ...(turnId === null ? [] : [{ type: 'run_finished' as const, turnId, status: 'cancelled' as const }]),
      ...(queued === null ? [] : [{ type: 'queue_cleared' as const, reason: 'cleared' as const }]),
      { type: 'status_changed', status: 'cancelled' },
    ];
    journal.append(sessionId, events);
    this.discardSubAgents(sessionId);
    return { queued };
  }

  /**
   * The sub-agents of a turn that is not going on are not either: one the app stopped in the middle of (working, or
   * waiting at a gate nobody can answer now) ends cancelled, and so do its own.
   */
  private discardSubAgents(sessionId: string): void {
    const { store, turns, journal } = this.options;
    for (const child of store.subAgents(sessionId)) {
      // One waiting at a gate again since the start is stopped: nobody will take its answer now.
      if (turns.isBusy(child.id)) {
        void turns.cancel(child.id);
        continue;
      }
      if (busyStatuses.has(child.status) || child.status === 'interrupted') {
        const turnId = journal.head(child.id).openTurn;
        journal.append(child.id, [
          ...(turnId === null ? [] : [{ type: 'run_finished' as const, turnId, status: 'cancelled' as const }]),
          { type: 'status_changed', status: 'cancelled' },
        ]);
      }
      this.discardSubAgents(child.id);
    }
  }

  private resumeTurn(sessionId: string): { turnId: string | null } {
    const { store, turns, conversations, journal } = this.options;
    const head = journal.head(sessionId);
    if (head.openTurn === null) {
      // Nothing was running; a queued message was waiting to start.
      journal.append(sessionId, [{ type: 'status_changed', status: 'idle' }]);
      turns.startQueued(sessionId);
      return { turnId: null };
    }
    const base = conversations.at(sessionId, head.checkpointId, { upToSeq: head.lastSeq, keepOpenCalls: true });
    const begin = resumeFrom({
      history: base.history,
      resume: head.resume,
      rowsFrom: (seq) => store.journal(sessionId, { afterSeq: seq - 1 }),
    });
    this.openAgain(sessionId, head.resume);
    const openTools = openCallTools(base.history);
    return { turnId: turns.start(sessionId, { text: null, turnId: head.openTurn, resumed: true, base, begin, openCallTools: openTools }) };
  }

  /**
   * The gates the turn waited at take an answer from now on, before the turn is back at them: it may first wait for its
   * folder's own MCP servers to start (see `Turn`), and an answer given meanwhile is kept for it.
   */
  private openAgain(sessionId: string, resume: ResumeState | null): void {
    const { gates } = this.options;
    if (resume?.budget) gates.openGate(resume.budget.gateId, 'budget', sessionId);
    if (resume?.at !== 'tools') return;
    if (resume.plan?.state === 'waiting') gates.openGate(resume.plan.planId, 'plan', sessionId);
    for (const call of resume.calls) {
      if (call.state === 'gate' && call.approvalId && !call.answer) gates.openGate(call.approvalId, 'approval', sessionId);
      if (call.state === 'held' && call.reviewId) gates.openGate(call.reviewId, 'review', sessionId);
    }
  }
}
