import { mkdirSync, readFileSync, readdirSync, lstatSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../../src/shared/domain';
import { waitFor } from '../../helpers';
import { textTurn } from '../../scripted-model-server';
import { toolCall } from '../agent/harness';
import { useScriptedCore, type ScriptedCore } from '../scripted-core';

/** Every file's bytes under `folder`, joined: what a grep of it reads. */
function allBytes(folder: string): Buffer {
  const parts: Buffer[] = [];
  for (const name of readdirSync(folder, { recursive: true }) as string[]) {
    const path = join(folder, name);
    parts.push(Buffer.from(name));
    if (lstatSync(path).isFile()) parts.push(readFileSync(path));
  }
  return Buffer.concat(parts);
}

describe('the trash of the app with an encrypted database', () => {
  let scripted: ScriptedCore;
  useScriptedCore(
    {
      builtinTools: true,
      encrypted: true,
      dataDir: (folder) => join(folder, 'data'),
      prepare: (folder) => {
        mkdirSync(join(folder, 'ws'));
        writeFileSync(join(folder, 'ws', 'deploy-keys.txt'), 'AWS_SECRET=wJalrXUtnFEMI-example\n');
        // An entry deleted while the database was plain, as the trash kept it then.
        const entry = join(folder, 'data', 'trash', 'before1');
        mkdirSync(entry, { recursive: true });
        writeFileSync(join(entry, 'item'), 'STRIPE_KEY=sk_live_plain_from_before\n');
        const manifest = {
          version: 1,
          id: 'before1',
          originalPath: join(folder, 'ws', 'stripe.txt'),
          workspacePath: join(folder, 'ws'),
          relativePath: 'stripe.txt',
          deletedAt: 1,
          directory: false,
        };
        writeFileSync(join(entry, 'manifest.json'), JSON.stringify(manifest));
      },
    },
    (started) => (scripted = started),
  );

  const trash = (): string => join(scripted.folder.path, 'data', 'trash');
  const ws = (): string => join(scripted.folder.path, 'ws');

  it('seals at start what was kept plain before, and still lists and restores it', async () => {
    await waitFor(() => !allBytes(trash()).includes('sk_live_plain_from_before'), 5_000, 'the plain entry sealed');
    expect(allBytes(trash()).includes('stripe.txt')).toBe(false);
    expect(await scripted.transport.invoke('trash:list', {})).toMatchObject({
      ok: true,
      value: [{ id: 'before1', relativePath: 'stripe.txt' }],
    });
    expect(await scripted.transport.invoke('trash:restore', { id: 'before1' })).toMatchObject({
      ok: true,
      value: { relativePath: 'stripe.txt' },
    });
    expect(readFileSync(join(ws(), 'stripe.txt'), 'utf8')).toBe('STRIPE_KEY=sk_live_plain_from_before\n');
  });

  it('seals what the agent deletes, and answers a changed entry with a typed error that changes nothing', async () => {
    const created = await scripted.transport.invoke('session:create', { workspacePath: ws() });
    const session = (created as { ok: true; value: Session }).value;
    await scripted.transport.invoke('session:setAutonomy', { sessionId: session.id, autonomy: 'L3' });
    scripted.server.enqueue({ steps: [toolCall('delete', { path: 'deploy-keys.txt' }, 'd1')] }, textTurn('Deleted.'));
    await scripted.transport.invoke('run:send', { sessionId: session.id, text: 'Delete the deploy keys' });
    await scripted.core.runtime?.whenIdle(session.id);
    expect(readdirSync(ws())).not.toContain('deploy-keys.txt');
    const bytes = allBytes(trash());
    for (const text of ['wJalrXUtnFEMI', 'deploy-keys', ws()]) expect(bytes.includes(text)).toBe(false);
    const listed = await scripted.transport.invoke('trash:list', {});
    const [entry] = (listed as { ok: true; value: Array<{ id: string; relativePath?: string }> }).value;
    expect(entry?.relativePath).toBe('deploy-keys.txt');
    const blob = join(trash(), entry?.id ?? '', 'blobs', '0');
    const changed = readFileSync(blob);
    changed[40] = (changed[40] ?? 0) ^ 1;
    writeFileSync(blob, changed);
    expect(await scripted.transport.invoke('trash:restore', { id: entry?.id ?? '' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_state', message: expect.stringContaining('does not open from the trash') },
    });
    expect(readdirSync(ws())).not.toContain('deploy-keys.txt');
    expect(readFileSync(blob).equals(changed)).toBe(true);
  });
});
