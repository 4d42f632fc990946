import type { Autonomy, ModelChoice, Session, SessionStatus } from '../../shared/domain';
import type { JournalEntry, RuntimeEvent } from '../../shared/events';

export interface NewSession {
  readonly id: string;
  readonly title: string;
  readonly workspacePath: string | null;
  readonly model: ModelChoice | null;
  readonly autonomy: Autonomy;
  readonly createdAt: number;
}

export interface SessionPatch {
  readonly title?: string;
  readonly workspacePath?: string | null;
  readonly model?: ModelChoice | null;
  readonly autonomy?: Autonomy;
  readonly status?: SessionStatus;
}

/** Sessions and their event journal. Appends are atomic: all events of a call land, or none. */
export interface SessionStore {
  list(): Session[];
  get(sessionId: string): Session | null;
  create(session: NewSession): Session;
  update(sessionId: string, patch: SessionPatch, at: number): Session;
  delete(sessionId: string): boolean;
  /** Appends events in order; a `status_changed` event also updates the session row in the same transaction. */
  append(sessionId: string, events: readonly RuntimeEvent[], at: number): JournalEntry[];
  journal(sessionId: string, options?: { afterSeq?: number }): JournalEntry[];
  /** Runs `work` in one transaction, so appends and other writes of the same database land together or not at all. */
  transaction<T>(work: () => T): T;
}
