import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/main/store/database';
import { SqliteFileHistory } from '../../../src/main/workspace/file-history';
import { temporaryFolder } from '../../helpers';
import { startLinkSwapper } from '../../link-swapper';
import { needs, procFs, symlinks } from '../../platform';

/**
 * Toggles `ws/sub` between the real folder (moved aside to `held` and back) and a link to the
 * outside folder, as a command left running in the background could. Every path it touches lies in
 * the test's own temporary folders.
 */
describe('file history and links', needs(procFs, symlinks), () => {
  let folder: ReturnType<typeof temporaryFolder>;
  let outsideFolder: ReturnType<typeof temporaryFolder>;
  let ws: string;
  let outside: string;
  let db: Database;
  let child: ChildProcess | null = null;
  let snapshots = 0;

  beforeEach(() => {
    folder = temporaryFolder('workbench-history-');
    outsideFolder = temporaryFolder('workbench-outside-');
    ws = join(folder.path, 'ws');
    outside = outsideFolder.path;
    mkdirSync(ws);
    writeFileSync(join(outside, 'marker.txt'), 'outside, never touched\n');
    db = openDatabase(join(folder.path, 'workbench.db')).db;
    db.prepare("INSERT INTO sessions (id, title, workspace_path, status, created_at, updated_at) VALUES ('S', 't', ?, 'idle', 0, 0)").run(
      ws,
    );
  });
  afterEach(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    child = null;
    db.close();
    folder.remove();
    outsideFolder.remove();
  });

  const capture = (history: SqliteFileHistory, kind: 'step' | 'safety' = 'step') =>
    history.capture({ sessionId: 'S', workspacePath: ws, id: `s${String((snapshots += 1)).padStart(6, '0')}`, at: snapshots, kind });
  const outsideNames = (): string[] => readdirSync(outside).sort();

  it('writes nothing through a saved folder that became a link to outside, and lists the file as refused', async () => {
    mkdirSync(join(ws, 'sub'));
    writeFileSync(join(ws, 'sub', 'config.txt'), 'from the snapshot\n');
    writeFileSync(join(ws, 'app.ts'), 'v1\n');
    const history = new SqliteFileHistory(db);
    const saved = await capture(history);
    // Later a command replaces the folder with a link to a folder outside, and changes app.ts.
    rmSync(join(ws, 'sub'), { recursive: true });
    symlinkSync(outside, join(ws, 'sub'));
    writeFileSync(join(ws, 'app.ts'), 'v2\n');
    const now = await capture(history);

    const restored = await history.restore({
      workspacePath: ws,
      targetId: saved.snapshotId,
      expectedId: now.snapshotId,
      overwriteConflicts: false,
    });
    expect(outsideNames()).toEqual(['marker.txt']);
    expect(readFileSync(join(outside, 'marker.txt'), 'utf8')).toBe('outside, never touched\n');
    expect(readFileSync(join(ws, 'app.ts'), 'utf8')).toBe('v1\n');
    expect(restored).toEqual({ written: ['app.ts'], deleted: [], kept: [], refused: ['sub/config.txt'] });
  });

  it('makes no folder outside for a saved file deeper under such a link', async () => {
    mkdirSync(join(ws, 'sub', 'deep', 'er'), { recursive: true });
    writeFileSync(join(ws, 'sub', 'deep', 'er', 'file.txt'), 'deep\n');
    const history = new SqliteFileHistory(db);
    const saved = await capture(history);
    rmSync(join(ws, 'sub'), { recursive: true });
    symlinkSync(outside, join(ws, 'sub'));
    const restored = await history.restore({ workspacePath: ws, targetId: saved.snapshotId, expectedId: null, overwriteConflicts: true });
    expect(outsideNames()).toEqual(['marker.txt']);
    expect(restored.refused).toEqual(['sub/deep/er/file.txt']);
  });

  it('refuses to write into .git or the app data folder through a saved folder that became a link to them', async () => {
    const data = join(ws, '.workbench-data');
    mkdirSync(join(ws, '.git', 'hooks'), { recursive: true });
    mkdirSync(data);
    mkdirSync(join(ws, 'hooks'));
    mkdirSync(join(ws, 'settings'));
    writeFileSync(join(ws, 'hooks', 'pre-commit'), '#!/bin/sh\necho saved\n');
    writeFileSync(join(ws, 'settings', 'profile.json'), '{}\n');
    const history = new SqliteFileHistory(db, undefined, [data]);
    const saved = await capture(history);
    rmSync(join(ws, 'hooks'), { recursive: true });
    rmSync(join(ws, 'settings'), { recursive: true });
    symlinkSync('.git/hooks', join(ws, 'hooks'));
    symlinkSync('.workbench-data', join(ws, 'settings'));
    const restored = await history.restore({ workspacePath: ws, targetId: saved.snapshotId, expectedId: null, overwriteConflicts: true });
    expect(readdirSync(join(ws, '.git', 'hooks'))).toEqual([]);
    expect(readdirSync(data)).toEqual([]);
    expect(restored.refused).toEqual(['hooks/pre-commit', 'settings/profile.json']);
  });

  it('still follows a saved folder that became a link inside the workspace, and replaces a link at the file itself', async () => {
    mkdirSync(join(ws, 'sub'));
    mkdirSync(join(ws, 'other'));
    writeFileSync(join(ws, 'sub', 'config.txt'), 'saved config\n');
    writeFileSync(join(ws, 'notes.md'), 'saved notes\n');
    writeFileSync(join(ws, 'real.md'), 'real\n');
    const history = new SqliteFileHistory(db);
    const saved = await capture(history);
    rmSync(join(ws, 'sub'), { recursive: true });
    symlinkSync('other', join(ws, 'sub'));
    rmSync(join(ws, 'notes.md'));
    symlinkSync('real.md', join(ws, 'notes.md'));
    const restored = await history.restore({ workspacePath: ws, targetId: saved.snapshotId, expectedId: null, overwriteConflicts: true });
    expect(restored.written).toEqual(['notes.md', 'sub/config.txt']);
    expect(readFileSync(join(ws, 'other', 'config.txt'), 'utf8')).toBe('saved config\n');
    // The link at notes.md is replaced by the saved file; what it led to is left as it was.
    expect(readFileSync(join(ws, 'notes.md'), 'utf8')).toBe('saved notes\n');
    expect(readFileSync(join(ws, 'real.md'), 'utf8')).toBe('real\n');
    expect(restored.refused).toEqual([]);
  });

  it('leaves links out of a snapshot, whether they lead inside or out', async () => {
    writeFileSync(join(ws, 'real.txt'), 'real\n');
    symlinkSync('real.txt', join(ws, 'inside-link.txt'));
    symlinkSync(join(outside, 'marker.txt'), join(ws, 'outside-link.txt'));
    symlinkSync(outside, join(ws, 'outside-folder'));
    const history = new SqliteFileHistory(db);
    const saved = await capture(history);
    expect(saved.files).toBe(1);
    const blobs = db.prepare('SELECT data FROM file_blobs').all() as Array<{ data: Buffer }>;
    expect(blobs.map((blob) => blob.data.toString())).toEqual(['real\n']);
  });

  it('saves no outside content while a folder keeps turning into a link to outside', async () => {
    mkdirSync(join(ws, 'sub'));
    for (let index = 0; index < 20; index += 1) {
      writeFileSync(join(ws, 'sub', `f${index}.txt`), `inside ${index}\n`);
      writeFileSync(join(outside, `f${index}.txt`), `SECRET-outside ${index}\n`);
    }
    const history = new SqliteFileHistory(db);
    child = await startLinkSwapper(ws, join(folder.path, 'held'), outside, 2_000);
    const seen = { withSub: 0, withoutSub: 0 };
    // 200 captures, and more (up to 1,000) only if a busy machine kept the toggler from showing both states.
    for (let round = 0; round < 200 || ((seen.withSub === 0 || seen.withoutSub === 0) && round < 1000); round += 1) {
      const info = await capture(history, 'safety');
      if (info.files > 0) seen.withSub += 1;
      else seen.withoutSub += 1;
    }
    const blobs = db.prepare('SELECT data FROM file_blobs').all() as Array<{ data: Buffer }>;
    expect(blobs.map((blob) => blob.data.toString()).filter((text) => text.includes('SECRET-outside'))).toEqual([]);
    expect(seen.withSub).toBeGreaterThan(0);
    expect(existsSync(join(outside, 'marker.txt'))).toBe(true);
  }, 120_000);
});
