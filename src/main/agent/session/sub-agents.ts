/*
 * Sub-agents: the `delegate` tool hands a sub-task to a session of its own (a fresh context, the same loop), waits
 * for it, and gives its bounded answer back as the call's result.
 */
import type { ModelChoice, Session, SubAgentLink } from '../../../shared/domain';
import { CancelledError, NotFoundError, WorkbenchError } from '../../../shared/errors';
import { checkStepId, checkVerdictOf, type CheckVerdict } from '../../../shared/plan-graph';
import type { ConversationStore } from '../history/conversation-store';
import type { SessionJournal } from '../history/session-journal';
import type { Clock } from '../ports/clock';
import type { SessionStore } from '../ports/stores';
import { defineTool, type Tool, type ToolContext, type ToolOutcome } from '../ports/tools';
import type { WorktreeMaker } from '../ports/git';
import type { Recovery } from './recovery';
import { bringBackSubAgent, subAgentWorktree, worktreeStateOf } from './session-worktrees';
import { answerOf, lastAnswer } from './sub-agent-answers';
import { briefHold, briefText, delegateInputSchema, subAgentDefaults, titleOf, type DelegateInput } from './sub-agent-brief';
import { answerBound, assertServed, modelFor, serverLimit } from './sub-agent-models';
import { FolderWriters, Slots, type ServerLimit } from './sub-agent-turns';
import { delegateToolName, type TurnScheduler } from './turn-scheduler';

export interface SubAgentLimits {
  /** How many sub-agents run at once, over every session. */
  readonly concurrency: number;
  /** How deep sub-agents may hand work on (0: no delegation). */
  readonly depth: number;
}

export interface SubAgentsOptions {
  readonly store: SessionStore;
  readonly turns: TurnScheduler;
  readonly journal: SessionJournal;
  readonly conversations: ConversationStore;
  readonly recovery: Recovery;
  readonly clock: Clock;
  readonly newId: () => string;
  readonly limits: () => SubAgentLimits;
  /** Gives a new sub-agent its parent's profile and the tool groups switched off there; absent where profiles are not kept. */
  readonly inheritProfile?: (parentId: string, childId: string) => void;
  /** The window of a model, in tokens: a sub-agent's answer takes at most a share of its parent's. */
  readonly windowOf: (choice: ModelChoice, signal: AbortSignal) => Promise<number>;
  /**
   * How many requests an endpoint's server answers at once with a prompt cache each (llama-server's slots), when it
   * says: no more sub-agents run at once on it, since more would only wait and push each other's prompts out.
   */
  readonly serverConcurrency?: (choice: ModelChoice, signal: AbortSignal) => Promise<number | null>;
  /** The models an endpoint serves now, to refuse a brief that names another before a sub-agent is made for it. */
  readonly modelsOf?: (choice: ModelChoice, signal: AbortSignal) => Promise<readonly string[]>;
  /** Worktrees for writing sub-agents that ask for one; none without git. */
  readonly worktrees?: WorktreeMaker;
}

/**
 * The sub-agents of every session: the `delegate` tool, and how a sub-agent's session is made, run, resumed after a
 * stop of the app, and read for its answer. A sub-agent is a session of its own, linked to its parent's session and
 * call, so its journal, checkpoints, gates and recovery are those of any session; it is not listed with the
 * person's sessions but opens from its parent's tool card.
 */
export class SubAgents {
  private readonly slots: Slots;
  /** The sub-agents holding a slot now, with the server limit it was taken under. */
  private readonly holding = new Map<string, ServerLimit | null>();
  /** One writing sub-agent per folder at a time. */
  private readonly writers = new FolderWriters();
  /** Per parent sub-agent, how many of its calls run sub-agents on its lent slot, and the limit it takes it back under. */
  private readonly lent = new Map<string, { count: number; server: ServerLimit | null }>();

  constructor(private readonly options: SubAgentsOptions) {
    this.slots = new Slots(() => Math.max(1, options.limits().concurrency));
  }

  /** The `delegate` tool. Read-only by its own risk: what the sub-agent does is decided at its own gates. */
  tool(): Tool {
    return defineTool({
      name: delegateToolName,
      description:
        'Hands a self-contained sub-task to a sub-agent with a fresh context of its own, and returns only its answer. ' +
        'Use it for work that would fill your context: surveying many files, searching widely, reviewing. Give the goal, ' +
        'what to return, and anything it must know (it sees nothing of this conversation). Sub-agents read only unless ' +
        'tools is "read_write". Several calls in one response run in parallel; writers wait for each other, unless each ' +
        'has worktree: true (in a git repository), which gives it a checkout of its own whose changes come back when it ends.',
      input: delegateInputSchema,
      // Handing work on changes nothing by itself: every call the sub-agent makes is decided at its own gates, by the
      // same rules and autonomy, so a sub-agent that may write asks for each write as this session would.
      risk: 'read_only',
      resumable: true,
      optional: true,
      // What a sub-agent that may write changes is saved around its call, so the parent's Changes and restores cover it.
      changesFiles: (input) => input.tools === 'read_write',
      assess: (input) =>
        briefHold([input.goal, input.returns, input.context]) ?? {
          level: 'read_only',
          reason:
            input.tools === 'read_write'
              ? 'delegate hands on work; each change the sub-agent makes is asked for at its own gate, as the rules say'
              : 'delegate hands on reading work to a read-only sub-agent',
        },
      summarize: (input) => `${input.tools === 'read_write' ? '(may write) ' : ''}${input.goal.split('\n')[0]?.slice(0, 160) ?? ''}`,
      execute: (input, context) => this.hand(input, context),
    });
  }

  /** The sub-agents a session's calls started, oldest first. */
  of(sessionId: string): Session[] {
    return this.options.store.subAgents(sessionId);
  }

  /**
   * The plans run earlier in this call's turn, oldest first, each with what its check found, or null when it made no
   * check (its steps all failed, or its answer could not be written). Read from the plans' sub-agents, which know the
   * turn and the call that made them, so it holds after a stop of the app.
   */
  plansBefore(context: ToolContext): Array<CheckVerdict | null> {
    const turnId = this.options.journal.head(context.sessionId).openTurn;
    if (turnId === null) return [];
    const plans = new Map<string, CheckVerdict | null>();
    for (const { id, subAgent } of this.options.store.subAgents(context.sessionId)) {
      if (subAgent?.stepId === undefined || subAgent.turnId !== turnId || subAgent.toolCallId === context.toolCallId) continue;
      if (!plans.has(subAgent.toolCallId)) plans.set(subAgent.toolCallId, null);
      if (subAgent.stepId === checkStepId) plans.set(subAgent.toolCallId, checkVerdictOf(lastAnswer(this.options, id) ?? ''));
    }
    return [...plans.values()];
  }

  /**
   * Runs a call's sub-agent (or, with `stepId`, the sub-agent of one step of a plan the call runs) to its answer: made
   * and started the first time, picked up where it was when the call runs again after a stop of the app, read when it
   * had finished. Stop (the parent's signal) stops it too.
   */
  async hand(input: DelegateInput, context: ToolContext, stepId?: string): Promise<ToolOutcome> {
    const { store } = this.options;
    const parent = store.get(context.sessionId);
    if (!parent) throw new NotFoundError('Session', context.sessionId);
    const existing =
      store
        .subAgents(parent.id)
        .find((session) => session.subAgent?.toolCallId === context.toolCallId && session.subAgent.stepId === stepId) ?? null;
    if (!existing && parent.subAgent?.tools === 'read_only' && input.tools === 'read_write')
      throw new WorkbenchError(
        'invalid_input',
        'A sub-agent that may only read cannot hand on work that writes: ask for tools "read_only".',
      );
    this.lend(parent.id);
    // Sub-agents that may write never work in one folder at the same time (a writer's own sub-agents take its turn).
    const folder = (existing ?? parent).workspacePath ?? '';
    const writes = (existing?.subAgent?.tools ?? input.tools) === 'read_write';
    // One in a worktree of its own writes elsewhere: it waits for nobody, and takes the folder only to bring its work back.
    const isolated = writes && (existing ? worktreeStateOf(this.options.store, existing.id) !== null : input.worktree === true);
    let child: Session | null = existing;
    let broughtBack = '';
    try {
      const writing = writes && !isolated ? await this.writers.take(folder, parent.id, context.signal) : null;
      try {
        const server = await serverLimit(this.options, existing?.model ?? modelFor(this.options, parent, input.model), context.signal);
        await this.slots.take(context.signal, server);
        let holder: string | null = null;
        try {
          // Made only once it may run: a Stop while it waited leaves no sub-agent that never started.
          child ??= await this.create(parent, input, context, stepId);
          holder = child.id;
          this.holding.set(holder, server);
          writing?.hand(child.id);
          if (context.signal.aborted) throw new CancelledError();
          context.emitOutput(`${existing ? 'Picking up' : 'Handing the task to'} ${child.title} (session ${child.id}).\n`);
          this.start(child, input);
          await this.finished(child.id, context.signal);
          if (isolated) broughtBack = await this.bringBack(child.id, parent, context.signal);
        } finally {
          if (holder === null) this.slots.give(server);
          else this.giveBack(holder);
        }
      } finally {
        writing?.release();
      }
    } finally {
      await this.takeBack(parent.id, context.signal);
    }
    const answer = answerOf(this.options, child.id);
    return broughtBack === '' ? answer : { ...answer, output: `${answer.output}\n\n${broughtBack}` };
  }

  /** A finished sub-agent's worktree brought back to its parent's folder, taking that folder as a writer would. */
  private async bringBack(childId: string, parent: Session, signal: AbortSignal): Promise<string> {
    const { store, journal, worktrees } = this.options;
    if (!worktrees || parent.workspacePath === null) return '';
    const writing = await this.writers.take(parent.workspacePath, parent.id, signal);
    try {
      return await bringBackSubAgent({ store, journal, worktrees }, childId);
    } finally {
      writing.release();
    }
  }

  /**
   * A sub-agent waiting for its own sub-agents lends its slot meanwhile (so a tree never waits on itself), and takes it
   * back when the last of them has answered, not before: its other calls may still be running theirs.
   */
  private lend(parentId: string): void {
    const lent = this.lent.get(parentId);
    if (lent !== undefined) lent.count += 1;
    else if (this.holding.has(parentId)) {
      const server = this.holding.get(parentId) ?? null;
      this.giveBack(parentId);
      this.lent.set(parentId, { count: 1, server });
    }
  }

  private async takeBack(parentId: string, signal: AbortSignal): Promise<void> {
    const lent = this.lent.get(parentId);
    if (lent === undefined) return;
    if (lent.count > 1) {
      lent.count -= 1;
      return;
    }
    this.lent.delete(parentId);
    // Stopped, the parent goes on no further: its own call gives back nothing it does not hold.
    if (signal.aborted) return;
    await this.slots.take(signal, lent.server);
    this.holding.set(parentId, lent.server);
  }

  /** Gives back the slot a sub-agent holds, if it holds one. */
  private giveBack(holder: string): void {
    if (!this.holding.has(holder)) return;
    const server = this.holding.get(holder) ?? null;
    this.holding.delete(holder);
    this.slots.give(server);
  }

  /** A new sub-agent's session, in the parent's folder, with its autonomy and model (or the one the brief names). */
  private async create(parent: Session, input: DelegateInput, context: ToolContext, stepId?: string): Promise<Session> {
    const { store, journal, clock, newId, limits } = this.options;
    const depth = (parent.subAgent?.depth ?? 0) + 1;
    const allowed = limits().depth;
    if (depth > allowed)
      throw new WorkbenchError(
        'invalid_state',
        allowed === 0
          ? 'Delegation is off in Settings.'
          : `Sub-agents may hand work on at most ${allowed} levels deep; this would be ${depth}.`,
      );
    const model = modelFor(this.options, parent, input.model);
    if (model && input.model !== undefined) await assertServed(this.options, model, context.signal);
    const turnId = journal.head(parent.id).openTurn;
    const link: SubAgentLink = {
      parentSessionId: parent.id,
      toolCallId: context.toolCallId,
      ...(stepId === undefined ? {} : { stepId }),
      ...(turnId === null ? {} : { turnId }),
      depth,
      tools: input.tools,
      modelCalls: input.modelCalls ?? subAgentDefaults.modelCalls,
      answerChars: await answerBound(this.options, parent, input.answerChars ?? subAgentDefaults.answerChars, context.signal),
    };
    const made =
      input.tools === 'read_write' && input.worktree === true
        ? await subAgentWorktree(this.options.worktrees, parent.workspacePath, titleOf(input.goal), newId().slice(-4).toLowerCase())
        : null;
    const session = store.create({
      id: newId(),
      title: titleOf(input.goal),
      workspacePath: made?.workspacePath ?? parent.workspacePath,
      model,
      autonomy: parent.autonomy,
      createdAt: clock.now(),
      subAgent: link,
    });
    // The same agent: its profile (its instructions, its fallback) and the tools switched off for the parent.
    this.options.inheritProfile?.(parent.id, session.id);
    journal.announceSession(session.id);
    if (made) journal.append(session.id, [{ type: 'worktree_created', worktree: made.worktree }]);
    return session;
  }

  /**
   * Starts the sub-agent's turn: its brief the first time; after a stop of the app, from where it was (its session was
   * not among those recovery looked at, since it is not listed). One that had finished is left as it is.
   */
  private start(child: Session, input: DelegateInput): void {
    const { store, turns, journal } = this.options;
    if (turns.isBusy(child.id)) return;
    const session = store.get(child.id);
    if (!session) throw new NotFoundError('Session', child.id);
    // No turn yet (made just before the app stopped, or only its worktree journalled): its brief is sent now.
    if (journal.head(child.id).lastSeq < 0 || store.nearest(child.id, 'after', -1, ['run_started']) === null) {
      turns.start(child.id, { text: briefText(input, session.subAgent?.answerChars ?? subAgentDefaults.answerChars) });
      return;
    }
    this.options.recovery.pickUp(child.id);
  }

  /** Waits for the sub-agent's turn to end; the parent's Stop stops it (and closes its gates). */
  private async finished(childId: string, signal: AbortSignal): Promise<void> {
    const { turns } = this.options;
    // Its own end is awaited below; a failure here (the app closing) has nothing left to stop.
    const stop = (): void => void turns.cancel(childId).catch(() => undefined);
    if (signal.aborted) stop();
    signal.addEventListener('abort', stop, { once: true });
    try {
      await turns.whenIdle(childId);
    } finally {
      signal.removeEventListener('abort', stop);
    }
    if (signal.aborted) throw new CancelledError();
  }
}
