/*
 * The SQLite stores of the core's database (`openStores`): sessions, checkpoints, grants and the steady time they end
 * on, accounting, memory, profiles and prompt records.
 */

import type { Database } from 'better-sqlite3';
import type { Clock } from '../agent/ports/clock';
import { SqliteAccountingStore } from '../store/sqlite-accounting-store';
import { SqliteCheckpointStore } from '../store/sqlite-checkpoint-store';
import { SqliteMemoryStore } from '../store/sqlite-memory-store';
import { SqliteProfileStore } from '../store/sqlite-profile-store';
import { SqlitePromptRecords } from '../store/sqlite-prompt-records';
import { SqliteSessionStore } from '../store/sqlite-session-store';
import { SqliteSteadyTime } from '../store/sqlite-steady-time';
import { SqliteTrustStore } from '../store/sqlite-trust-store';

/** The SQLite stores of one database. */
export function openStores(db: Database, clock: Clock, monotonic?: () => number) {
  const steady = new SqliteSteadyTime(db, () => clock.now(), monotonic);
  return {
    steady,
    store: new SqliteSessionStore(db),
    checkpoints: new SqliteCheckpointStore(db, () => clock.now()),
    trust: new SqliteTrustStore(db, steady),
    accounting: new SqliteAccountingStore(db),
    memory: new SqliteMemoryStore(db, clock),
    profiles: new SqliteProfileStore(db, clock),
    prompts: new SqlitePromptRecords(db, clock),
  };
}

export type Stores = ReturnType<typeof openStores>;
