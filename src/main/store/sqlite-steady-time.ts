/*
 * Steady time kept in SQLite: a count of milliseconds that goes on across restarts and is never turned back.
 */

import type { Database, Statement } from 'better-sqlite3';
import type { SteadyClock } from '../agent/ports/clock';

/** How far steady time may run ahead of what is stored: after a crash it restarts at most this much behind. */
const saveEveryMs = 2_000;

interface SteadyRow {
  steady: number;
  wall: number;
}

/**
 * Steady time in the database. The first run of the app starts it at the wall clock's time, so deadlines made before
 * it existed (grants kept from earlier versions) keep their meaning. Each reading adds the larger of what the
 * monotonic clock and the wall clock moved since the last one, never less than nothing.
 */
export class SqliteSteadyTime implements SteadyClock {
  private steady: number;
  private lastWall: number;
  private lastMonotonic: number;
  private saved: number;
  private readonly statements: { save: Statement<[SteadyRow]> };

  constructor(
    db: Database,
    private readonly wall: () => number = Date.now,
    private readonly monotonic: () => number = () => performance.now(),
  ) {
    this.statements = {
      save: db.prepare(
        'INSERT INTO steady_time (id, steady, wall) VALUES (1, @steady, @wall) ON CONFLICT (id) DO UPDATE SET steady = MAX(steady, excluded.steady), wall = excluded.wall',
      ),
    };
    const row = db.prepare('SELECT steady, wall FROM steady_time WHERE id = 1').get() as SteadyRow | undefined;
    const wallNow = this.wall();
    // The time the app was closed counts only as far as the wall clock moved forward meanwhile.
    this.steady = row ? row.steady + Math.max(0, wallNow - row.wall) : wallNow;
    this.lastWall = wallNow;
    this.lastMonotonic = this.monotonic();
    this.saved = Number.NEGATIVE_INFINITY;
    this.save();
  }

  now(): number {
    const wallNow = this.wall();
    const monotonicNow = this.monotonic();
    this.steady += Math.max(0, monotonicNow - this.lastMonotonic, wallNow - this.lastWall);
    this.lastWall = wallNow;
    this.lastMonotonic = monotonicNow;
    if (this.steady - this.saved >= saveEveryMs) this.save();
    return this.steady;
  }

  /** Writes the current reading, so a restart goes on from it (at close, and every few seconds of use). */
  save(): void {
    const steady = Math.floor(this.steady);
    this.statements.save.run({ steady, wall: Math.floor(this.lastWall) });
    this.saved = steady;
  }
}
