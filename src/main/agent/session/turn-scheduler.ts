/*
 * Starts turns, queues one message while a turn runs, stops turns, and starts the queued message.
 */
import { setMaxListeners } from 'node:events';
import type { Attachment } from '../../../shared/attachments';
import { defaultBudgetSettings, type BudgetSettings, type SessionAllowance } from '../../../shared/budgets';
import type { GateTimeout, ModelChoice, ModelPrice, Session } from '../../../shared/domain';
import { sessionAllowanceOf } from '../turn/budget-gate';
import { NotFoundError, WorkbenchError } from '../../../shared/errors';
import type { RuntimeEvent } from '../../../shared/events';
import type { ConversationBase, ConversationStore } from '../history/conversation-store';
import type { Gates } from '../rules/gates';
import type { ProviderResolver } from '../ports/ports';
import type { SessionJournal } from '../history/session-journal';
import type { NewBranch, SessionStore } from '../ports/stores';
import type { SessionHead } from '../ports/session-head';
import { Turn, type TurnStart } from '../turn/turn';
import { toolsSwitchedOff, type TurnProfile } from '../rules/profiles';
import type { TurnServices, TurnSetup } from '../turn/step-context';

/** Limits from the settings: a turn reads the first two when it starts, and the denied tools whenever it offers or decides. */
export interface RuntimeLimits {
  readonly planThreshold: number;
  /** Model calls per turn; null: no limit. */
  readonly maxIterations: number | null;
  readonly deniedTools: readonly string[];
  /** The other budgets (off when absent); read at every check. */
  readonly budgets?: BudgetSettings;
  /** Tool groups whose flagged results are held for the person; read at every result. */
  readonly heldToolGroups?: readonly string[];
  /** How long approval gates wait at each autonomy level; read as each opens. */
  readonly gateTimeout?: GateTimeout;
  /** The person's prices per model; read at every model call. */
  readonly modelPrices?: readonly ModelPrice[];
  /** How deep sub-agents may hand work on (0: no delegation); read when a turn starts. */
  readonly subAgentDepth?: number;
  /** How many sub-agents run at once, over every session (2 when absent). */
  readonly subAgentConcurrency?: number;
  /** The share of the window the repository map may take (0: no map; none when absent); read when a turn starts. */
  readonly codeMapShare?: number;
}

/** The tool with which the agent hands a sub-task to a sub-agent. */
export const delegateToolName = 'delegate';
/** The tools that hand work on to sub-agents: one sub-task, or a plan of them. */
const handingOn: readonly string[] = [delegateToolName, 'run_plan'];

export interface TurnSchedulerOptions {
  readonly store: SessionStore;
  readonly providers: ProviderResolver;
  readonly conversations: ConversationStore;
  readonly journal: SessionJournal;
  readonly gates: Gates;
  readonly services: TurnServices;
  readonly limits: () => RuntimeLimits;
  /** The profile a session's next turn runs with; none when profiles are not kept (some tests). */
  readonly profile?: (sessionId: string, workspacePath: string | null) => TurnProfile;
}

export interface StartInput {
  /** The person's message; null when the turn answers again (a retry) or resumes. */
  readonly text: string | null;
  /** Files attached to the message, read and checked already. */
  readonly attachments?: readonly Attachment[];
  /** A resumed turn keeps its id. */
  readonly turnId?: string;
  readonly resumed?: boolean;
  /** The conversation to start from; the session's head otherwise. */
  readonly base?: ConversationBase;
  readonly begin?: TurnStart;
  /** The tools the calls a resumed turn finds open name: a folder's own are made ready before it looks them up. */
  readonly openCallTools?: readonly string[];
  /** A branch to open for the turn, in the same transaction as its first events. */
  readonly branch?: NewBranch;
  /** Events journalled in the same transaction as the turn's first ones (a queued message taken). */
  readonly prelude?: readonly RuntimeEvent[];
}

export type SendResult = { readonly turnId: string; readonly queued: false } | { readonly turnId: null; readonly queued: true };

interface ActiveTurn {
  readonly turnId: string;
  readonly controller: AbortController;
  readonly finished: Promise<void>;
}

/** The first event of a branch, journalled as it opens. */
export function branchStarted(branch: NewBranch): RuntimeEvent {
  const { id: branchId, parentId, forkSeq, checkpointId, reason } = branch;
  return { type: 'branch_started', branchId, parentId, forkSeq, checkpointId, reason };
}

/**
 * Runs sessions' turns: starts them, queues one message while a turn runs (a newer one replaces
 * it), stops them, and starts the queued message when a turn ends. Every turn ends in a terminal
 * status, whatever happens.
 */
export class TurnScheduler {
  private readonly active = new Map<string, ActiveTurn>();
  private readonly queue = new Map<string, string>();
  /** Sessions whose files are being restored: nothing else may start meanwhile. */
  private readonly restoring = new Set<string>();

  constructor(private readonly options: TurnSchedulerOptions) {}

  isBusy(sessionId: string): boolean {
    return this.active.has(sessionId);
  }

  anyBusy(): boolean {
    return this.active.size > 0;
  }

  /** Puts back a message that was queued when the app stopped. */
  requeue(sessionId: string, text: string): void {
    this.queue.set(sessionId, text);
  }

  /** Takes the queued message away (it goes back to the person). */
  takeQueued(sessionId: string): string | null {
    const text = this.queue.get(sessionId) ?? null;
    this.queue.delete(sessionId);
    return text;
  }

  /**
   * Starts a turn, or queues the message when one is running. Everything is checked before
   * anything is written, so a refused send changes nothing.
   */
  send(sessionId: string, text: string, attachments: readonly Attachment[] = []): SendResult {
    if (!this.options.store.get(sessionId)) throw new NotFoundError('Session', sessionId);
    if (this.restoring.has(sessionId)) throw new WorkbenchError('session_busy', 'Files are being restored; wait for it to finish.');
    if (this.active.has(sessionId)) {
      // The queue keeps text only (it is journalled as `message_queued`, and put back after a crash from there).
      if (attachments.length > 0)
        throw new WorkbenchError('session_busy', 'Files can be attached when the agent is free: wait for this turn to end, or Stop it.');
      const replaced = this.queue.has(sessionId);
      this.options.journal.append(sessionId, [{ type: 'message_queued', text, replaced }]);
      this.queue.set(sessionId, text);
      return { turnId: null, queued: true };
    }
    return { turnId: this.start(sessionId, { text, ...(attachments.length > 0 ? { attachments } : {}) }), queued: false };
  }

  clearQueue(sessionId: string): boolean {
    if (!this.options.store.get(sessionId)) throw new NotFoundError('Session', sessionId);
    if (!this.queue.has(sessionId)) return false;
    this.options.journal.append(sessionId, [{ type: 'queue_cleared', reason: 'cleared' }]);
    this.queue.delete(sessionId);
    return true;
  }

  /** Stops the running turn; resolves once it has ended and its state is saved. */
  async cancel(sessionId: string): Promise<boolean> {
    const turn = this.active.get(sessionId);
    if (!turn) return false;
    // Its sub-agents stop with it (their parent's Stop reaches them); done when they are, all the way down. They are
    // looked up first: the store may be closing by the time the turn has ended.
    const children = this.options.store.subAgents(sessionId);
    turn.controller.abort(new WorkbenchError('cancelled', 'Stopped by the user.'));
    await turn.finished;
    await Promise.all(children.map((child) => this.cancel(child.id)));
    return true;
  }

  /** The session budgets as raised before this turn: a sub-agent's are those of the session at the top of its tree. */
  private allowanceOf(session: Session, head: SessionHead): SessionAllowance {
    const { store, journal } = this.options;
    const root = this.rootOf(session);
    return root.id === session.id ? sessionAllowanceOf(store, session.id, head) : sessionAllowanceOf(store, root.id, journal.head(root.id));
  }

  /** The session the person started at the top of a sub-agent's tree; a session the person started is its own. */
  private rootOf(session: Session): Session {
    let root = session;
    for (let link = root.subAgent; link; link = root.subAgent) {
      const parent = this.options.store.get(link.parentSessionId);
      if (!parent) break;
      root = parent;
    }
    return root;
  }

  /** Resolves when the session has no running turn and nothing queued. */
  async whenIdle(sessionId: string): Promise<void> {
    for (let turn = this.active.get(sessionId); turn; turn = this.active.get(sessionId)) await turn.finished;
  }

  /** Refuses to go on while a turn runs or files are being restored. */
  assertIdle(sessionId: string): void {
    if (!this.options.store.get(sessionId)) throw new NotFoundError('Session', sessionId);
    if (this.active.has(sessionId)) throw new WorkbenchError('session_busy', 'Stop the running turn first.');
    if (this.restoring.has(sessionId)) throw new WorkbenchError('session_busy', 'Files are being restored; wait for it to finish.');
  }

  /** Runs `work` with the session held for a restore of its files: no turn starts meanwhile. */
  async whileRestoring<T>(sessionId: string, work: () => Promise<T>): Promise<T> {
    this.restoring.add(sessionId);
    try {
      return await work();
    } finally {
      this.restoring.delete(sessionId);
    }
  }

  async dispose(): Promise<void> {
    this.queue.clear();
    const turns = [...this.active.values()];
    for (const turn of turns) turn.controller.abort(new WorkbenchError('cancelled', 'The app is closing.'));
    await Promise.all(turns.map((turn) => turn.finished));
  }

  /** Starts a turn now. Nothing is written until nothing can refuse the start. */
  start(sessionId: string, input: StartInput): string {
    const { store, providers, conversations, journal, gates, services } = this.options;
    const session = store.get(sessionId);
    if (!session) throw new NotFoundError('Session', sessionId);
    const profiled = this.options.profile?.(sessionId, session.workspacePath) ?? null;
    const choice: ModelChoice | null = session.model ?? profiled?.profile.model ?? providers.defaultModel();
    if (!choice) throw new WorkbenchError('no_model', 'Choose a model for this session first.');
    if (choice.model === '') throw new WorkbenchError('no_model', 'Choose a model for this session first: only its endpoint is picked.');
    const provider = providers.resolve(choice);
    const endpoint = providers.describe(choice);
    const head = journal.head(sessionId);
    const base = input.base ?? conversations.at(sessionId, head.checkpointId);
    const turnId = input.turnId ?? services.newId();
    const limits = this.options.limits();
    // Read at every request and decision, as the denied tools are: a tool that comes meanwhile (an MCP server's) is
    // out of a read-only sub-agent's reach at once.
    const outOfReach = (): string[] => this.outOfReach(session, this.options.limits());
    const setup: TurnSetup = {
      sessionId,
      sessionStartedAt: session.createdAt,
      turnId,
      autonomy: session.autonomy,
      workspacePath: session.workspacePath,
      choice,
      endpoint,
      provider,
      history: base.history,
      checkpointHead: base.head,
      userText: input.text,
      ...(input.attachments ? { userAttachments: input.attachments } : {}),
      ...(base.unsavedHistory ? { unsavedHistory: base.unsavedHistory } : {}),
      planThreshold: limits.planThreshold,
      codeMapShare: limits.codeMapShare ?? 0,
      // The profile's own budgets stand in for those of Settings where it sets them; a sub-agent has its brief's.
      maxIterations: session.subAgent
        ? session.subAgent.modelCalls
        : profiled?.profile.limits.modelCalls === undefined
          ? limits.maxIterations
          : profiled.profile.limits.modelCalls,
      deniedTools: () => {
        const denied = this.options.limits().deniedTools;
        const off = profiled?.toolGroupsOff ?? [];
        const own = off.length === 0 ? denied : [...denied, ...toolsSwitchedOff(services.tools.list(session.workspacePath), off)];
        const out = outOfReach();
        return out.length === 0 ? own : [...own, ...out];
      },
      outOfReach,
      ...(session.subAgent ? { subAgent: session.subAgent, rootSessionId: this.rootOf(session).id } : {}),
      profile: profiled,
      fallback: this.fallbackFor(profiled, choice),
      heldToolGroups: () => this.options.limits().heldToolGroups,
      gateTimeout: () => this.options.limits().gateTimeout,
      prices: () => this.options.limits().modelPrices ?? [],
      budgets: () => {
        const { modelCalls: _modelCalls, ...own } = profiled?.profile.limits ?? {};
        return { ...(this.options.limits().budgets ?? defaultBudgetSettings), ...own };
      },
      // A sub-agent spends from the allowance of the session at the top of its tree, raised there at its gates.
      sessionAllowance: this.allowanceOf(session, head),
    };
    const question: RuntimeEvent[] =
      input.text === null
        ? []
        : [
            {
              type: 'user_message',
              turnId,
              messageId: services.newId(),
              text: input.text,
              ...(input.attachments && input.attachments.length > 0 ? { attachments: [...input.attachments] } : {}),
            },
          ];
    journal.append(
      sessionId,
      [
        ...(input.branch ? [branchStarted(input.branch)] : []),
        ...(input.prelude ?? []),
        ...base.warnings,
        ...question,
        {
          type: 'run_started',
          turnId,
          model: choice,
          providerKind: provider.kind,
          ...(profiled ? { profile: { id: profiled.profile.id, version: profiled.profile.version, name: profiled.profile.name } } : {}),
          ...(input.resumed ? { resumed: true } : {}),
          autonomy: session.autonomy,
        },
        { type: 'status_changed', status: 'planning' },
      ],
      input.branch ? { branch: input.branch } : {},
    );
    const controller = new AbortController();
    // Every call running at once listens for Stop, and a sub-agent's hand-over twice more: eight in one response pass
    // Node's default of ten, which is a warning about a leak, not a limit.
    setMaxListeners(100, controller.signal);
    const turn = new Turn(setup, services, controller, input.begin, input.openCallTools);
    const finished = turn.run().finally(() => {
      this.active.delete(sessionId);
      gates.closeSession(sessionId);
      const saved = turn.saved();
      if (saved) conversations.remember(sessionId, saved.checkpointId, saved.seq, saved.messages);
      this.startQueued(sessionId);
    });
    this.active.set(sessionId, { turnId, controller, finished });
    return turnId;
  }

  /**
   * The tools a session may not use beyond what the person denied: a read-only sub-agent's tools that change anything,
   * and `delegate` where handing work on would go deeper than the settings allow.
   */
  private outOfReach(session: Session, limits: RuntimeLimits): string[] {
    const depth = session.subAgent?.depth ?? 0;
    const tools = this.options.services.tools.list(session.workspacePath);
    const out = depth >= (limits.subAgentDepth ?? 0) ? [...handingOn] : [];
    if (session.subAgent?.tools === 'read_only')
      out.push(...tools.filter((tool) => tool.baseRisk !== 'read_only' && !handingOn.includes(tool.name)).map((tool) => tool.name));
    return out;
  }

  /** The profile's fallback model, ready to be asked: none when it is the same model, or its endpoint is gone. */
  private fallbackFor(profiled: TurnProfile | null, choice: ModelChoice): TurnSetup['fallback'] {
    const fallback = profiled?.profile.fallbackModel ?? null;
    if (!fallback || (fallback.providerId === choice.providerId && fallback.model === choice.model)) return null;
    try {
      return { choice: fallback, provider: this.options.providers.resolve(fallback), endpoint: this.options.providers.describe(fallback) };
    } catch {
      // An endpoint removed since the profile was saved: the turn has no fallback, as the profile view says.
      return null;
    }
  }

  /** A queued message runs as soon as the turn before it ends. */
  startQueued(sessionId: string): void {
    const text = this.queue.get(sessionId);
    if (text === undefined) return;
    this.queue.delete(sessionId);
    try {
      // Taken from the queue in the transaction that starts its turn: a crash between the two
      // cannot lose it.
      this.start(sessionId, { text, prelude: [{ type: 'queue_cleared', reason: 'started' }] });
    } catch (error) {
      // Nothing was written: it stays queued, as the journal says, for the person to send or clear.
      this.queue.set(sessionId, text);
      console.error('Could not start the queued message:', error instanceof Error ? error.message : String(error));
    }
  }
}
