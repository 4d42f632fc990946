import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { workspaceTools } from '../../../src/main/tools/workspace-tools';
import { fastTemporaryFolder, runTool, snapshot } from './escape-fixture';
import { needs, procFs, symlinks } from '../../platform';

/**
 * Keeps `ws/sub` changing for as long as it runs, as a command left running in the background
 * could. `folder`: a real folder (holding edit.txt), then a link to the outside folder, removed
 * and made again each time (a write may make `sub` in between; it is removed again). `links`: a
 * link to a folder inside, then a link to the outside folder, each put in place by an atomic
 * rename, so `sub` is never missing.
 *
 * Against a check-then-write (realpath, then write by path), `folder` mode puts a file in the
 * outside folder within the first few hundred calls; `links` mode checks that following links by
 * reading them stays right while they change.
 */
const swapper = `
const fs = require('node:fs');
const [ws, outside, mode] = process.argv.slice(1);
const sub = ws + '/sub';
const remove = () => { try { fs.rmSync(sub, { recursive: true, force: true }); } catch {} };
const place = (target) => {
  try { fs.symlinkSync(target, ws + '/sub.next'); } catch {}
  try { fs.renameSync(ws + '/sub.next', sub); } catch { remove(); }
};
for (let round = 0; ; round += 1) {
  if (mode === 'folder') {
    remove();
    try { fs.mkdirSync(sub); fs.writeFileSync(sub + '/edit.txt', 'edit me please\\n'); } catch {}
    remove();
    try { fs.symlinkSync(outside, sub); } catch {}
  } else {
    place('inside');
    try { if (!fs.existsSync(ws + '/inside/edit.txt')) fs.writeFileSync(ws + '/inside/edit.txt', 'edit me please\\n'); } catch {}
    place(outside);
  }
  if (round === 0) process.stdout.write('ready\\n');
}
`;

const secret = 'SECRET-race';

describe('the file tools while a folder is swapped for a link to outside', needs(procFs, symlinks), () => {
  let child: ChildProcess | null = null;
  let folder: ReturnType<typeof fastTemporaryFolder> | null = null;
  afterEach(() => {
    child?.kill('SIGKILL');
    folder?.remove();
  });

  it.each([
    ['folder', 1000],
    ['links', 500],
  ] as const)(
    'in %s mode, over %i writes, none lands outside and none reads outside',
    async (mode, writes) => {
      folder = fastTemporaryFolder('workbench-race-');
      const ws = join(folder.path, 'ws');
      const outside = join(folder.path, 'outside');
      mkdirSync(join(ws, 'inside'), { recursive: true });
      mkdirSync(outside);
      writeFileSync(join(outside, 'edit.txt'), `${secret}: edit me please\n`);
      writeFileSync(join(outside, 'keep.txt'), `${secret}: keep me\n`);
      const tools = new Map(
        workspaceTools({ dataDir: join(folder.path, 'data'), ripgrep: null, newId: () => `e${Math.random()}`, now: () => 0 }).map(
          (tool) => [tool.name, tool],
        ),
      );
      const before = snapshot(outside);

      const started = spawn(process.execPath, ['-e', swapper, ws, outside, mode], { stdio: ['ignore', 'pipe', 'inherit'] });
      child = started;
      await new Promise<void>((resolve) => started.stdout?.once('data', () => resolve()));

      const counts = { writes: 0, written: 0, refused: 0, otherwise: 0 };
      // Past the planned writes, go on (up to five times as many) only if a busy machine kept the swapper from showing both states.
      const more = () => (counts.refused === 0 || counts.written === 0) && counts.writes < writes * 5;
      for (let index = 0; counts.writes < writes || more(); index += 1) {
        const kind = index % 10;
        const call: [string, Record<string, unknown>] =
          kind < 8
            ? ['write_file', { path: `sub/written-${index}.txt`, content: 'from the race\n' }]
            : kind === 8
              ? ['edit_file', { path: 'sub/edit.txt', oldText: 'e', newText: 'E', replaceAll: true }]
              : ['delete', { path: 'sub/edit.txt' }];
        if (call[0] === 'write_file') counts.writes += 1;
        let text: string;
        try {
          text = await runTool(tools, call[0], call[1], ws);
          counts.written += 1;
        } catch (error) {
          text = (error as Error).message;
          const code = (error as { code?: string }).code;
          if (code === 'path_refused') counts.refused += 1;
          else {
            // A folder that vanished between calls: the file to edit or delete is not there.
            expect(code, text).toBe('invalid_input');
            counts.otherwise += 1;
          }
        }
        expect(text).not.toContain(secret);
        // Nothing in the loop removes what lands outside, so looking now and then (and at the end) misses nothing.
        if (index % 50 === 0) expect(snapshot(outside), `${call[0]} ${JSON.stringify(call[1])}`).toBe(before);
      }
      started.kill('SIGKILL');
      expect(snapshot(outside)).toBe(before);
      // The race was real: some calls found the link there and were refused, others found the folder and wrote.
      expect(counts.refused, JSON.stringify(counts)).toBeGreaterThan(0);
      expect(counts.written, JSON.stringify(counts)).toBeGreaterThan(0);
    },
    30_000,
  );
});
