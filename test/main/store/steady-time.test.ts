import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TrustGrant } from '../../../src/shared/domain';
import { openDatabase } from '../../../src/main/store/database';
import { migrations } from '../../../src/main/store/migrations';
import { SqliteSteadyTime } from '../../../src/main/store/sqlite-steady-time';
import { SqliteTrustStore } from '../../../src/main/store/sqlite-trust-store';
import { temporaryFolder } from '../../helpers';

const minute = 60_000;
const hour = 60 * minute;
const start = Date.UTC(2026, 10, 27, 9, 0, 0);

/** A wall clock the test sets, and a monotonic clock it moves: as a person setting the clock would, and time passing. */
class Clocks {
  wall = start;
  monotonic = 1_000;
  pass(ms: number): void {
    this.wall += ms;
    this.monotonic += ms;
  }
}

function grant(now: number, lastsMs: number, id = 'g1'): TrustGrant {
  return {
    id,
    tool: 'run_command',
    pattern: { kind: 'command_prefix', words: ['npm', 'test'] },
    workspacePath: '/work',
    maxRisk: 'write_high',
    sessionId: null,
    createdAt: now,
    expiresAt: now + lastsMs,
    revokedAt: null,
    description: 'run_command: npm test …',
  };
}

describe('grants on steady time', () => {
  let folder: ReturnType<typeof temporaryFolder>;
  let path: string;
  let clocks: Clocks;
  let db: Database;
  const open = () => {
    db = openDatabase(path).db;
    const steady = new SqliteSteadyTime(
      db,
      () => clocks.wall,
      () => clocks.monotonic,
    );
    return { steady, trust: new SqliteTrustStore(db, steady) };
  };
  beforeEach(() => {
    folder = temporaryFolder();
    path = join(folder.path, 'workbench.sqlite');
    clocks = new Clocks();
  });
  afterEach(() => {
    if (db.open) db.close();
    folder.remove();
  });

  it('setting the clock back within a run revives no grant', () => {
    const { trust } = open();
    trust.create(grant(clocks.wall, hour));
    clocks.pass(30 * minute);
    expect(trust.listActive(clocks.wall).map((found) => found.id)).toEqual(['g1']);
    // Two hours back: by the wall clock alone the grant would now last another two and a half hours.
    clocks.wall -= 2 * hour;
    clocks.pass(29 * minute);
    expect(trust.listActive(clocks.wall).map((found) => found.id)).toEqual(['g1']);
    clocks.pass(2 * minute);
    expect(trust.listActive(clocks.wall)).toEqual([]);
  });

  it('a computer asleep (the monotonic clock stopped) still ends a grant by the wall clock', () => {
    const { trust } = open();
    trust.create(grant(clocks.wall, hour));
    clocks.wall += 2 * hour;
    expect(trust.listActive(clocks.wall)).toEqual([]);
    // And steady time moved with it: setting the clock back afterwards does not bring the grant back.
    clocks.wall -= 2 * hour;
    expect(trust.listActive(clocks.wall)).toEqual([]);
  });

  it('across a restart with the clock set back, a grant has no more time than it had at close', () => {
    const first = open();
    first.trust.create(grant(clocks.wall, hour));
    clocks.pass(50 * minute);
    expect(first.trust.listActive(clocks.wall)).toHaveLength(1);
    first.steady.save();
    db.close();
    // Closed, the clock put back a day, the app started again.
    clocks.wall -= 24 * hour;
    const second = open();
    expect(second.trust.listActive(clocks.wall)).toHaveLength(1);
    clocks.pass(9 * minute);
    expect(second.trust.listActive(clocks.wall)).toHaveLength(1);
    clocks.pass(2 * minute);
    expect(second.trust.listActive(clocks.wall)).toEqual([]);
  });

  it('across a restart, time that passed while the app was closed counts', () => {
    const first = open();
    first.trust.create(grant(clocks.wall, hour));
    first.steady.save();
    db.close();
    clocks.wall += 61 * minute;
    const second = open();
    expect(second.trust.listActive(clocks.wall)).toEqual([]);
  });

  it('after a crash (no save at close) steady time restarts at most a few seconds behind', () => {
    const first = open();
    first.trust.create(grant(clocks.wall, hour));
    for (let step = 0; step < 59 * 60; step += 1) {
      clocks.pass(1_000);
      first.steady.now();
    }
    const reached = first.steady.now();
    // No save at close: the process was killed.
    db.close();
    clocks.wall -= 24 * hour;
    const second = open();
    expect(second.steady.now()).toBeGreaterThanOrEqual(reached - 2_000);
    clocks.pass(59_000);
    expect(second.trust.listActive(clocks.wall)).toHaveLength(1);
    clocks.pass(3_000);
    expect(second.trust.listActive(clocks.wall)).toEqual([]);
  });

  it('a grant kept from before steady time existed ends where its wall-clock end said', () => {
    const early = openDatabase(path, { migrations: migrations.filter((migration) => migration.version <= 15) }).db;
    early
      .prepare(
        "INSERT INTO trust_grants (id, tool, pattern, workspace_path, max_risk, session_id, created_at, expires_at, revoked_at, description) VALUES ('old', 'run_command', ?, '/work', 'write_high', NULL, ?, ?, NULL, 'old grant')",
      )
      .run(JSON.stringify({ kind: 'command_prefix', words: ['make'] }), start, start + hour);
    early.close();
    const { trust } = open();
    clocks.pass(59 * minute);
    expect(trust.listActive(clocks.wall).map((found) => found.id)).toEqual(['old']);
    clocks.wall -= 3 * hour;
    clocks.monotonic += 2 * minute;
    expect(trust.listActive(clocks.wall)).toEqual([]);
  });

  it('a session grant has no end, whatever the clocks do', () => {
    const { trust } = open();
    db.prepare("INSERT INTO sessions (id, title, status, created_at, updated_at) VALUES ('session-1', 'A', 'idle', 1, 1)").run();
    trust.create({ ...grant(clocks.wall, hour, 's1'), sessionId: 'session-1', expiresAt: null });
    clocks.pass(48 * hour);
    clocks.wall -= 100 * hour;
    expect(trust.listActive(clocks.wall).map((found) => found.id)).toEqual(['s1']);
  });
});
