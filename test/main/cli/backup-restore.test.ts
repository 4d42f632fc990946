import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/main/store/database';
import { latestSchemaVersion } from '../../../src/main/store/migrations';
import { ended, otherProcessHolding } from '../../database-holder';
import { temporaryFolder } from '../../helpers';
import { ScriptedModelServer } from '../../scripted-model-server';
import { runCli } from './run-cli';

const digest = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

describe('the terminal runner on a database that cannot be opened', () => {
  let server: ScriptedModelServer;
  let data: ReturnType<typeof temporaryFolder>;
  let workspace: ReturnType<typeof temporaryFolder>;
  let path: string;
  let older: string;
  let newer: string;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    server = await ScriptedModelServer.start();
  });
  afterAll(async () => {
    await server.close();
  });

  /** Adds a session of this title to the database, closed again. */
  function addSession(id: string, title: string): void {
    const { db } = openDatabase(path);
    db.prepare("INSERT INTO sessions (id, title, status, created_at, updated_at) VALUES (?, ?, 'idle', 1, 1)").run(id, title);
    db.close();
  }
  function titles(): unknown[] {
    const { db } = openDatabase(path);
    try {
      return db.prepare('SELECT title FROM sessions ORDER BY created_at, id').pluck().all();
    } finally {
      db.close();
    }
  }
  /** Overwrites the file's first page, as a damaged disk or a bad copy would. */
  const damage = (): void => {
    const bytes = readFileSync(path);
    bytes.fill(7, 0, 4096);
    writeFileSync(path, bytes);
  };

  beforeEach(() => {
    data = temporaryFolder();
    workspace = temporaryFolder();
    path = join(data.path, 'workbench.sqlite');
    addSession('s1', 'Monday');
    older = `${path}.backup-v${latestSchemaVersion}-1700000000000`;
    writeFileSync(older, readFileSync(path));
    addSession('s2', 'Tuesday');
    newer = `${path}.backup-v${latestSchemaVersion}-1700000100000`;
    writeFileSync(newer, readFileSync(path));
    addSession('s3', 'Wednesday');
  });
  afterEach(async () => {
    for (const child of children.splice(0)) {
      child.kill('SIGKILL');
      await ended(child);
    }
    data.remove();
    workspace.remove();
  });

  const turn = (): string[] => [
    '--workspace',
    workspace.path,
    '--endpoint',
    server.openaiBaseUrl,
    '--model',
    'scripted-model',
    '--trust-folder',
  ];

  it('says why and lists the backups that open; refuses while another process has it; puts the newest back, keeping the file', async () => {
    const other = await otherProcessHolding(path, 'Agent Workbench');
    children.push(other);
    damage();
    const damaged = digest(path);

    const refused = await runCli(['--data', data.path, ...turn(), 'Say hello']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`The database ${path} cannot be opened`);
    expect(refused.stderr).toContain(
      [
        'Backups that open, newest first:',
        `  ${newer}  (taken 2023-11-14T22:15:00.000Z, schema ${latestSchemaVersion})`,
        `  ${older}  (taken 2023-11-14T22:13:20.000Z, schema ${latestSchemaVersion})`,
        `Put one back in its place (the file is kept beside it): npm run agent -- --data ${data.path} --restore-backup newest|PATH`,
      ].join('\n'),
    );
    expect(server.requests).toHaveLength(0);

    // The app still has it open: the restore waits for it, and nothing is changed.
    const busy = await runCli(['--data', data.path, '--restore-backup', 'newest']);
    expect(busy.code).toBe(1);
    expect(busy.stderr).toMatch(
      new RegExp(`is open in Agent Workbench \\(pid ${other.pid}, since [^)]+\\)\\. Putting a backup back needs it alone`),
    );
    expect(digest(path)).toBe(damaged);
    expect(readdirSync(data.path).filter((name) => name.includes('unopened'))).toEqual([]);

    other.stdin?.end();
    await ended(other);
    const restored = await runCli(['--data', data.path, '--restore-backup', 'newest']);
    expect(restored.stderr).toBe('');
    expect(restored.code).toBe(0);
    const aside = `${path}.unopened-`;
    expect(restored.stdout).toMatch(
      new RegExp(
        `^Put back ${newer} \\(taken 2023-11-14T22:15:00.000Z\\) as ${path}; the database that could not be opened is kept as ${aside}\\d+, untouched\\.`,
      ),
    );
    const kept = readdirSync(data.path).filter((name) => /\.unopened-\d+$/.test(name));
    expect(kept).toHaveLength(1);
    expect(digest(join(data.path, kept[0] ?? ''))).toBe(damaged);
    expect(existsSync(newer)).toBe(true);
    expect(titles()).toEqual(['Monday', 'Tuesday']);

    // Now that it opens, nothing is put back over it.
    const again = await runCli(['--data', data.path, '--restore-backup', older]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(
      'opens: --restore-backup puts a backup back only in place of one that cannot be opened; nothing was changed.',
    );
    expect(titles()).toEqual(['Monday', 'Tuesday']);
  }, 60_000);

  it('puts back the backup named and goes on with the turn on it', async () => {
    damage();
    server.enqueue({ steps: [{ kind: 'text', text: 'Back on Monday.' }], usage: { inputTokens: 3, outputTokens: 3 } });
    const result = await runCli(['--data', data.path, '--restore-backup', older, ...turn(), 'Where are we?']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Put back ${older} (taken 2023-11-14T22:13:20.000Z) as ${path}`);
    expect(result.stdout).toMatch(/text_delta: Back on Monday\./);
    expect(titles()).toEqual(['Monday', 'Where are we?']);
  }, 60_000);

  it('refuses what is not a backup that opens, and a restore without the data folder, changing nothing', async () => {
    damage();
    const damaged = digest(path);
    const stranger = join(workspace.path, 'elsewhere.sqlite');
    writeFileSync(stranger, readFileSync(older));
    const refused = await runCli(['--data', data.path, '--restore-backup', stranger]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `${stranger} is not a backup of ${path} that opens now; nothing was changed.\nBackups that open, newest first:`,
    );
    const noData = await runCli(['--restore-backup', 'newest']);
    expect(noData.code).toBe(2);
    expect(noData.stderr).toContain('--restore-backup needs --data DIR');
    expect(digest(path)).toBe(damaged);
    expect(readdirSync(data.path).filter((name) => name.includes('unopened'))).toEqual([]);
  }, 60_000);
});
