/*
 * Deleted sessions, kept and restorable until their retention ends, then purged with what only they held.
 */
import type { Session } from '../../../shared/domain';
import { NotFoundError } from '../../../shared/errors';
import { toDisposable, type Disposable } from '../../../shared/lifecycle';
import { purgeTime, type ArchiveRetention } from '../../../shared/retention';
import type { CheckpointStore } from '../ports/checkpoints';
import type { Clock } from '../ports/clock';
import type { RuntimeListener } from '../ports/ports';
import type { SessionStore } from '../ports/stores';
import type { TrustStore } from '../ports/trust';

/** An archived session as Settings lists it: when it was archived, and when it will be purged (null: never). */
export interface ArchiveEntry {
  readonly session: Session;
  readonly archivedAt: number;
  readonly purgeAt: number | null;
}

/** What the archive needs of the runtime: a session held by a turn or a restore is not archived, and nothing of it stays in memory. */
export interface ArchiveRuntime {
  /** Throws `session_busy` while a turn runs or files are being restored. */
  assertIdle(sessionId: string): void;
  forget(sessionId: string): void;
  /** A session back from the archive that had stopped in the middle of a turn waits for the person, as after a restart. */
  recoverRestored(sessionId: string): void;
}

export interface SessionArchiveOptions {
  readonly store: SessionStore;
  readonly checkpoints: CheckpointStore;
  readonly trust: TrustStore;
  readonly runtime: ArchiveRuntime;
  readonly listener: RuntimeListener;
  readonly clock: Clock;
  readonly retention: () => ArchiveRetention;
  /**
   * Removes saved file contents no snapshot refers to any more; null when it could not run now (a capture was
   * under way) and should be tried again.
   */
  readonly collectFileContents: () => { removed: number; bytes: number } | null;
  /** Told when archiving revoked "this session" grants. */
  readonly onTrustChanged?: () => void;
  /** Told when a session was archived: what was kept running for its folder may no longer be needed. */
  readonly onArchived?: () => void;
}

/** How often archived sessions are looked at for purging, and file contents collected when something was. */
export const purgeEveryMs = 60 * 60_000;

/**
 * Deleting a session archives it: it leaves the list and nothing of it is removed, so it can be restored from
 * Settings until its retention period ends; then it is purged (its rows, its checkpoints, and the file contents
 * only it referred to). Purges run at start and on a timer; whether one is due is read from the injected clock.
 */
export class SessionArchive {
  /** File contents may be unreferenced: at start (a capture a crash cut short), after a purge, after a collection that had to wait. */
  private collectionDue = true;

  constructor(private readonly options: SessionArchiveOptions) {}

  /** Archives a session that is not running. Its "this session" grants are revoked: trust given there ends with it. */
  archive(sessionId: string): ArchiveEntry {
    const { store, runtime, trust, clock, listener } = this.options;
    if (!store.get(sessionId)) throw new NotFoundError('Session', sessionId);
    runtime.assertIdle(sessionId);
    const now = clock.now();
    const grants = trust.listActive(now).filter((grant) => grant.sessionId === sessionId);
    store.transaction(() => {
      for (const grant of grants) trust.revoke(grant.id, now);
      store.setArchived(sessionId, now);
    });
    for (const id of [sessionId, ...this.subAgentsBelow(sessionId)]) {
      runtime.forget(id);
      trust.forgetSession(id);
    }
    if (grants.length > 0) this.options.onTrustChanged?.();
    this.options.onArchived?.();
    listener.onSessionChanged({ deletedSessionId: sessionId });
    return this.entry(sessionId);
  }

  /** Brings an archived session back into the list, with everything it had. */
  restore(sessionId: string): Session {
    const { store, runtime, listener } = this.options;
    this.entry(sessionId);
    store.setArchived(sessionId, null);
    runtime.recoverRestored(sessionId);
    const session = store.get(sessionId);
    if (!session) throw new NotFoundError('Session', sessionId);
    listener.onSessionChanged({ session });
    return session;
  }

  /** Purges an archived session now, before its time. Only an archived session can be: the list's delete archives. */
  deleteNow(sessionId: string): void {
    this.entry(sessionId);
    this.purge(sessionId);
    this.collect();
  }

  list(): ArchiveEntry[] {
    const retention = this.options.retention();
    return this.options.store
      .archived()
      .map(({ session, archivedAt }) => ({ session, archivedAt, purgeAt: purgeTime(archivedAt, retention) }));
  }

  /** Purges every archived session whose time has come, then collects file contents no one refers to. */
  purgeDue(): { purged: string[]; collected: { removed: number; bytes: number } | null } {
    const now = this.options.clock.now();
    const purged: string[] = [];
    for (const entry of this.list()) {
      if (entry.purgeAt === null || entry.purgeAt > now) continue;
      try {
        this.purge(entry.session.id);
        purged.push(entry.session.id);
      } catch (error) {
        // One session that cannot be purged now (a locked database) does not keep the others; it is tried again next time.
        console.error(`Could not purge the archived session ${entry.session.id}:`, error instanceof Error ? error.message : String(error));
      }
    }
    return { purged, collected: this.collectionDue ? this.collect() : null };
  }

  /** Purges what is due now, and again every `everyMs` until disposed. */
  start(everyMs = purgeEveryMs): Disposable {
    const run = (): void => {
      try {
        this.purgeDue();
      } catch (error) {
        console.error('Purging archived sessions failed:', error instanceof Error ? error.message : String(error));
      }
    };
    run();
    const timer = setInterval(run, everyMs);
    // The purge timer alone never keeps the process running.
    timer.unref();
    return toDisposable(() => clearInterval(timer));
  }

  private entry(sessionId: string): ArchiveEntry {
    const found = this.list().find((entry) => entry.session.id === sessionId);
    if (!found) throw new NotFoundError('Archived session', sessionId);
    return found;
  }

  /**
   * Removes the session's rows (journal, branches, snapshots and grants go with it, and its sub-agents' sessions) and
   * its checkpoints and its sub-agents', in one transaction.
   */
  private purge(sessionId: string): void {
    const { store, checkpoints, trust } = this.options;
    const tree = [sessionId, ...this.subAgentsBelow(sessionId)];
    store.transaction(() => {
      store.delete(sessionId);
      for (const id of tree) checkpoints.deleteThread(id);
    });
    for (const id of tree) trust.forgetSession(id);
    this.collectionDue = true;
  }

  /** The sessions of a session's sub-agents, theirs too, all the way down. */
  private subAgentsBelow(sessionId: string): string[] {
    return this.options.store.subAgents(sessionId).flatMap((child) => [child.id, ...this.subAgentsBelow(child.id)]);
  }

  private collect(): { removed: number; bytes: number } | null {
    const collected = this.options.collectFileContents();
    this.collectionDue = collected === null;
    return collected;
  }
}
