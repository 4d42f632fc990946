import { spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmdirSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Trash } from '../../src/main/tools/trash';
import { workspaceTools } from '../../src/main/tools/workspace-tools';
import { SqliteFileHistory } from '../../src/main/workspace/file-history';
import { WorkspaceFiles } from '../../src/main/workspace/workspace-files';
import { runTool } from '../main/tools/escape-fixture';

/** Every folder here is a fresh mkdtemp under os.tmpdir(); nothing is removed afterwards. */
function fresh(): { base: string; ws: string; outside: string; data: string } {
  const base = mkdtempSync(join(tmpdir(), 'review-files-'));
  const ws = join(base, 'ws');
  const outside = mkdtempSync(join(tmpdir(), 'review-outside-'));
  const data = join(base, 'data');
  mkdirSync(ws);
  mkdirSync(data);
  return { base, ws, outside, data };
}

/** A tiny in-memory stand-in for the better-sqlite3 statements SqliteFileHistory uses. */
function fakeDb() {
  const rows = new Map<string, Record<string, unknown>>();
  const blobs = new Map<string, Buffer>();
  const prepare = (sql: string) => {
    if (sql.startsWith('SELECT id FROM file_snapshots'))
      return {
        get: (session: string) => {
          const ids = [...rows.values()].filter((r) => r.session_id === session).map((r) => r.id as string);
          ids.sort();
          return ids.length ? { id: ids.at(-1) } : undefined;
        },
      };
    if (sql.startsWith('SELECT * FROM file_snapshots')) return { get: (id: string) => rows.get(id) };
    if (sql.startsWith('INSERT INTO file_snapshots')) return { run: (row: Record<string, unknown>) => rows.set(row.id as string, row) };
    if (sql.startsWith('SELECT 1 AS one')) return { get: (hash: string) => (blobs.has(hash) ? { one: 1 } : undefined) };
    if (sql.startsWith('INSERT OR IGNORE INTO file_blobs'))
      return { run: (hash: string, _size: number, data: Buffer) => (blobs.has(hash) ? undefined : blobs.set(hash, Buffer.from(data))) };
    if (sql.startsWith('SELECT data FROM file_blobs')) return { get: (hash: string) => (blobs.has(hash) ? { data: blobs.get(hash) } : undefined) };
    throw new Error(`unexpected sql ${sql}`);
  };
  return { db: { prepare } as never, blobs };
}

function openFds(): number {
  return readdirSync('/proc/self/fd').length;
}

let children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
  children = [];
});

/**
 * Toggles ws/sub between a real folder (moved in from base/held) and a link to `outside`, with
 * renames and unlinks of the link only; every path is inside the test's mkdtemp folders.
 */
const swapper = `
const fs = require('node:fs');
const [ws, held, outside] = process.argv.slice(1);
const sub = ws + '/sub';
let round = 0;
for (;;) {
  try { fs.renameSync(sub, held); } catch {}
  try { fs.symlinkSync(outside, sub); } catch {}
  for (let i = 0; i < 200; i += 1) {}
  try { if (fs.lstatSync(sub).isSymbolicLink()) fs.unlinkSync(sub); } catch {}
  try { fs.renameSync(held, sub); } catch {}
  if (round++ === 0) process.stdout.write('ready\\n');
}
`;

async function startSwapper(ws: string, held: string, outside: string): Promise<void> {
  const child = spawn(process.execPath, ['-e', swapper, ws, held, outside], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  await new Promise<void>((resolve) => child.stdout?.once('data', () => resolve()));
}

describe('review: file tools', () => {
  it('F1 trash restore follows a link in a middle folder into .git (the write guard is skipped)', async () => {
    const { ws, data } = fresh();
    mkdirSync(join(ws, 'hooks'));
    mkdirSync(join(ws, '.git', 'hooks'), { recursive: true });
    writeFileSync(join(ws, 'hooks', 'pre-commit'), '#!/bin/sh\necho planted\n');
    const files = new WorkspaceFiles(ws, { protectedRoots: [data] });
    const trash = new Trash(join(data, 'trash'));
    await trash.put(files, 'hooks/pre-commit', { id: 't1', workspacePath: ws, now: 1 });
    // Later (e.g. a shell command of the agent): the emptied folder becomes a link to .git/hooks.
    rmdirSync(join(ws, 'hooks'));
    symlinkSync('.git/hooks', join(ws, 'hooks'));
    // The write tool refuses this exact path...
    expect(() => files.replace('hooks/pre-commit', () => 'x')).toThrow(/\.git folder/);
    // ...but the person's restore puts the file into .git/hooks.
    await trash.restore('t1');
    expect(existsSync(join(ws, '.git', 'hooks', 'pre-commit'))).toBe(true);
  });

  it('F2 file-history restore writes through a folder swapped for a link to outside', async () => {
    const { ws, outside } = fresh();
    mkdirSync(join(ws, 'sub'));
    writeFileSync(join(ws, 'sub', 'config.txt'), 'from the snapshot\n');
    const { db } = fakeDb();
    const history = new SqliteFileHistory(db);
    await history.capture({ sessionId: 'S', workspacePath: ws, id: 's1', at: 1, kind: 'step' });
    unlinkSync(join(ws, 'sub', 'config.txt'));
    rmdirSync(join(ws, 'sub'));
    symlinkSync(outside, join(ws, 'sub'));
    await history.capture({ sessionId: 'S', workspacePath: ws, id: 's2', at: 2, kind: 'step' });
    const preview = await history.preview({ workspacePath: ws, targetId: 's1', expectedId: 's2' });
    expect(preview).toEqual([{ path: 'sub/config.txt', change: 'create', conflict: false, available: true }]);
    await history.restore({ workspacePath: ws, targetId: 's1', expectedId: 's2', overwriteConflicts: false });
    expect(readFileSync(join(outside, 'config.txt'), 'utf8')).toBe('from the snapshot\n');
  });

  it('F3 file-history capture reads outside content when a folder is swapped for a link', async () => {
    const { base, ws, outside } = fresh();
    mkdirSync(join(ws, 'sub'));
    for (let i = 0; i < 20; i += 1) {
      writeFileSync(join(ws, 'sub', `f${i}.txt`), `inside ${i}\n`);
      writeFileSync(join(outside, `f${i}.txt`), `SECRET-history ${i}\n`);
    }
    const { db, blobs } = fakeDb();
    const history = new SqliteFileHistory(db);
    await startSwapper(ws, join(base, 'held'), outside);
    let leaked = 0;
    for (let round = 0; round < 200 && leaked === 0; round += 1) {
      await history.capture({ sessionId: 'S', workspacePath: ws, id: `s${String(round).padStart(4, '0')}`, at: round, kind: 'safety' });
      leaked = [...blobs.values()].filter((blob) => blob.toString().includes('SECRET-history')).length;
    }
    expect(leaked, 'blobs holding outside content').toBe(0);
  }, 60_000);

  it.runIf(existsSync('/usr/bin/rg'))('F4 ripgrep search returns outside text when a folder is swapped for a link', async () => {
    const { base, ws, outside, data } = fresh();
    mkdirSync(join(ws, 'sub'));
    for (let i = 0; i < 20; i += 1) {
      writeFileSync(join(ws, 'sub', `f${i}.txt`), `MARK inside ${i}\n`);
      writeFileSync(join(outside, `f${i}.txt`), `MARK SECRET-rg ${i}\n`);
    }
    const tools = new Map(workspaceTools({ dataDir: data, ripgrep: 'rg', newId: () => 'x', now: () => 0 }).map((t) => [t.name, t]));
    await startSwapper(ws, join(base, 'held'), outside);
    const leaks: string[] = [];
    for (let round = 0; round < 300 && leaks.length === 0; round += 1) {
      let out = '';
      try {
        out = await runTool(tools, 'search', { pattern: 'MARK' }, ws);
      } catch (error) {
        out = (error as Error).message;
      }
      if (out.includes('SECRET-rg')) leaks.push(`round ${round}: ${out.split('\n').filter((l) => l.includes('SECRET')).slice(0, 2).join(' | ')}`);
    }
    expect(leaks).toEqual([]);
  }, 60_000);

  it.runIf(existsSync('/usr/bin/rg'))('F5 a ripgrep file name with a newline makes the reader open ".." (the workspace parent)', async () => {
    const { base, ws, data } = fresh();
    mkdirSync(join(ws, 'q\n..'));
    writeFileSync(join(ws, 'q\n..', 'probe.txt'), 'MARK inside\n');
    const tools = new Map(workspaceTools({ dataDir: data, ripgrep: 'rg', newId: () => 'x', now: () => 0 }).map((t) => [t.name, t]));
    const without = await runTool(tools, 'search', { pattern: 'MARK' }, ws);
    // A plain file of that name next to the workspace (outside) turns the answer on.
    writeFileSync(join(base, 'probe.txt'), 'outside\n');
    const withOutside = await runTool(tools, 'search', { pattern: 'MARK' }, ws);
    expect({ without, withOutside }).toEqual({ without: 'No matches.', withOutside: '../probe.txt:1:MARK inside' });
  });

  it('F6 a write keeps setuid/setgid bits on the new file the app owns', () => {
    const { ws } = fresh();
    writeFileSync(join(ws, 'tool.sh'), '#!/bin/sh\ntrue\n');
    chmodSync(join(ws, 'tool.sh'), 0o6755);
    new WorkspaceFiles(ws).replace('tool.sh', () => '#!/bin/sh\necho agent content\n');
    expect((statSync(join(ws, 'tool.sh')).mode & 0o7777).toString(8)).toBe('6755');
  });

  it('F7 edit_file silently rewrites bytes that are not UTF-8 elsewhere in the file', async () => {
    const { ws, data } = fresh();
    writeFileSync(join(ws, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a, 0x41, 0x42, 0x0a])); // "café\nAB\n" in Latin-1
    const tools = new Map(workspaceTools({ dataDir: data, ripgrep: null, newId: () => 'x', now: () => 0 }).map((t) => [t.name, t]));
    await runTool(tools, 'edit_file', { path: 'latin1.txt', oldText: 'AB', newText: 'AC' }, ws);
    expect(readFileSync(join(ws, 'latin1.txt')).toString('hex')).toBe(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a, 0x41, 0x43, 0x0a]).toString('hex'));
  });

  it('F8 no descriptor leaks on error paths', async () => {
    const { ws, outside, data } = fresh();
    mkdirSync(join(ws, 'dir'));
    writeFileSync(join(ws, 'file.txt'), 'x\n');
    writeFileSync(join(outside, 'secret.txt'), 'SECRET\n');
    symlinkSync(outside, join(ws, 'out'));
    symlinkSync('loop2', join(ws, 'loop1'));
    symlinkSync('loop1', join(ws, 'loop2'));
    symlinkSync('nowhere/x', join(ws, 'dangling'));
    mkdirSync(join(ws, '.git'));
    const files = new WorkspaceFiles(ws, { protectedRoots: [data] });
    const trash = new Trash(join(data, 'trash'));
    const before = openFds();
    const attempts: Array<() => unknown> = [
      () => files.inspect('out/secret.txt'),
      () => files.inspect('loop1'),
      () => files.inspect('missing/x'),
      () => files.withFile('out/secret.txt', async () => 1),
      () => files.withFile('dir', async () => 1),
      () => files.withFile('missing', async () => 1),
      () => files.withFile('file.txt', async () => { throw new Error('use failed'); }),
      () => files.currentText('dir'),
      () => files.currentText('.git/config'),
      () => files.replace('file.txt/x', () => 'y'),
      () => files.replace('dangling', () => 'y'),
      () => files.replace('out/new.txt', () => 'y'),
      () => files.replace('deep/er/new.txt', () => { throw new Error('produce failed'); }),
      () => files.replace('dir', () => 'y'),
      () => files.replace('.', () => 'y'),
      () => files.moveOut('.', async () => join(data, 'x')),
      () => files.moveOut('missing', async () => join(data, 'x')),
      () => files.moveOut('file.txt', async () => { throw new Error('prepare failed'); }),
      () => files.moveOut('file.txt', async () => join(outside, 'no', 'such', 'folder', 'item')),
      () => files.moveIn('file.txt', join(outside, 'secret.txt')),
      () => files.moveIn('new-from-nowhere', join(outside, 'missing')),
      () => trash.restore('nope'),
    ];
    const errors: string[] = [];
    for (const attempt of attempts) {
      try {
        await attempt();
        errors.push('ok');
      } catch (error) {
        errors.push(`${(error as { code?: string }).code ?? 'no-code'}`);
      }
    }
    expect(openFds() - before, errors.join(',')).toBe(0);
    // Left behind by a failed write: the folders it made.
    expect(existsSync(join(ws, 'deep'))).toBe(false);
    // Only the known names are in the workspace: no .tmp files.
    expect(readdirSync(ws).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    expect(lstatSync(join(ws, 'file.txt')).isFile()).toBe(true);
  });

});
