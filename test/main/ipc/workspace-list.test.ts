import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { WorkbenchCore } from '../../../src/main/core/workbench-core';
import { temporaryFolder } from '../../helpers';
import { startLinkSwapper } from '../../link-swapper';
import { LoopbackTransport } from '../../host/loopback-transport';
import { createNodeCore } from '../../host/node-core';
import { needs, raceFreeWalk, symlinks } from '../../platform';

const folders: Array<{ remove: () => void }> = [];
let children: ChildProcess[] = [];
const cores: WorkbenchCore[] = [];
afterEach(async () => {
  for (const child of children) child.kill('SIGKILL');
  children = [];
  for (const core of cores.splice(0)) await core.close();
  for (const folder of folders.splice(0)) folder.remove();
});

async function setup(): Promise<{ base: string; ws: string; outside: string; transport: LoopbackTransport; sessionId: string }> {
  const base = temporaryFolder('workbench-list-');
  const outside = temporaryFolder('workbench-list-outside-');
  folders.push(base, outside);
  const ws = join(base.path, 'ws');
  const data = join(base.path, 'data');
  mkdirSync(join(ws, 'sub'), { recursive: true });
  mkdirSync(data);
  for (let i = 0; i < 20; i += 1) {
    writeFileSync(join(ws, 'sub', `inside-${i}.txt`), 'inside\n');
    writeFileSync(join(outside.path, `outside-secret-${i}.txt`), 'outside\n');
  }
  const transport = new LoopbackTransport();
  cores.push((await createNodeCore({ dataDir: data, transport })).core);
  const session = await transport.invoke('session:create', { title: 'List', workspacePath: ws });
  if (!session.ok) throw new Error('setup failed');
  return { base: base.path, ws, outside: outside.path, transport, sessionId: (session.value as { id: string }).id };
}

describe('workspace:list', () => {
  it('lists a folder of the workspace', async () => {
    const { transport, sessionId } = await setup();
    const listed = await transport.invoke('workspace:list', { sessionId, path: 'sub' });
    expect(listed.ok).toBe(true);
    const { entries } = (listed as { value: { entries: Array<{ name: string }> } }).value;
    expect(entries.map((entry) => entry.name)).toContain('inside-0.txt');
  });

  it(
    'never shows names from outside while a folder is swapped for a link to outside',
    { ...needs(raceFreeWalk, symlinks), timeout: 60_000 },
    async () => {
      const { base, ws, outside, transport, sessionId } = await setup();
      children.push(await startLinkSwapper(ws, join(base, 'held'), outside));
      const leaks: string[] = [];
      let listedInside = 0;
      // 2,000 rounds, and more (up to 20,000) only if a busy machine kept the swapper from showing the real folder.
      for (let round = 0; (round < 2000 || (listedInside === 0 && round < 20_000)) && leaks.length === 0; round += 1) {
        const listed = await transport.invoke('workspace:list', { sessionId, path: 'sub' });
        const text = JSON.stringify(listed);
        if (text.includes('outside-secret')) leaks.push(`round ${round}`);
        if (text.includes('inside-0.txt')) listedInside += 1;
      }
      expect(leaks).toEqual([]);
      expect(listedInside).toBeGreaterThan(0);
    },
  );
});
