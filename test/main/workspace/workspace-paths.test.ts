import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveWorkspacePath } from '../../../src/main/workspace/workspace-paths';
import { temporaryFolder } from '../../helpers';
import { needs, specialFiles, symlinks } from '../../platform';

describe('workspace paths', needs(symlinks, specialFiles), () => {
  let folder: ReturnType<typeof temporaryFolder>;
  let ws: string;
  let appData: string;
  const closers: Array<() => void> = [];

  beforeAll(async () => {
    folder = temporaryFolder('workbench-paths-');
    ws = join(folder.path, 'ws');
    appData = join(ws, '.workbench-data');
    const outside = join(folder.path, 'outside');
    for (const dir of [ws, outside, join(ws, 'src'), join(ws, 'deep', 'er'), join(ws, '.git'), appData])
      mkdirSync(dir, { recursive: true });
    writeFileSync(join(outside, 'secret.txt'), 'secret');
    writeFileSync(join(ws, 'src', 'index.ts'), 'export {}');
    writeFileSync(join(ws, 'README.md'), '# hi');
    writeFileSync(join(ws, '.gitignore'), 'node_modules');
    symlinkSync('../outside', join(ws, 'link-out'));
    symlinkSync('./src', join(ws, 'link-in'));
    symlinkSync('../../../outside', join(ws, 'deep', 'er', 'link-up'));
    symlinkSync('loop-b', join(ws, 'loop-a'));
    symlinkSync('loop-a', join(ws, 'loop-b'));
    symlinkSync('c2', join(ws, 'c1'));
    symlinkSync('c3', join(ws, 'c2'));
    symlinkSync('../outside/secret.txt', join(ws, 'c3'));
    symlinkSync('/dev/null', join(ws, 'devnull'));
    symlinkSync('/etc', join(ws, 'etc-link'));
    symlinkSync('nowhere/at/all', join(ws, 'dangling'));
    symlinkSync(folder.path, join(ws, 'parent-link'));
    execFileSync('mkfifo', [join(ws, 'pipe')]);
    const socketPath = join(ws, 'sock');
    await new Promise<void>((resolve) => {
      const server = createServer().listen(socketPath, resolve);
      closers.push(() => server.close());
    });
  });
  afterAll(() => {
    closers.forEach((close) => close());
    folder.remove();
  });

  /** At least forty ways out, every one refused. */
  const escapes: Array<[string, boolean]> = [
    ['../outside/secret.txt', false],
    ['../../etc/passwd', false],
    ['src/../../outside/secret.txt', false],
    ['src/../../../../../../etc/passwd', false],
    ['./../outside', false],
    ['..', false],
    ['/etc/passwd', false],
    ['/tmp', false],
    ['//etc/passwd', false],
    ['link-out/secret.txt', false],
    ['link-out', false],
    ['deep/er/link-up/secret.txt', false],
    ['c1', false],
    ['loop-a', false],
    ['loop-a/x', false],
    ['devnull', false],
    ['etc-link/passwd', false],
    ['parent-link/outside/secret.txt', false],
    ['dangling/new-file.txt', true],
    ['pipe', false],
    ['sock', false],
    ['src/index.ts\u0000.txt', false],
    ['src/\u0007bell', false],
    ['..\\outside\\secret.txt', false],
    ['src\\..\\..\\outside', false],
    ['\u2024\u2024/outside/secret.txt', false],
    ['\uFF0E\uFF0E\uFF0Foutside', false],
    ['src\u2215..\u2215..\u2215outside', false],
    ['..\u2044outside', false],
    ['src/\u200Bindex.ts', false],
    ['src/\u202Eexe.txt', false],
    ['~/.ssh/id_rsa', false],
    ['~', false],
    [`${'a/'.repeat(600)}x`, false],
    [`${'x'.repeat(300)}.txt`, false],
    ['', false],
    ['.git/config', true],
    ['.GIT/config', true],
    ['src/.Git/hooks/pre-commit', true],
    ['.git/hooks/post-checkout', true],
    ['.env', true],
    ['.env.local', true],
    ['config/.ENV.production', true],
    ['keys/id_rsa', true],
    ['id_ed25519.pub', true],
    ['certs/server.pem', true],
    ['certs/server.KEY', true],
    ['.netrc', true],
    ['.workbench-data/workbench.sqlite', true],
    ['.', true],
  ];

  it('has at least forty escape attempts', () => {
    expect(escapes.length).toBeGreaterThanOrEqual(40);
  });

  it.each(escapes)('refuses %j', async (requested, forWrite) => {
    await expect(resolveWorkspacePath(ws, requested, { forWrite, protectedRoots: [appData] })).rejects.toMatchObject({
      code: 'path_refused',
      message: expect.stringMatching(/^Refused /),
    });
  });

  it('refuses writes to protected paths but reads them', async () => {
    await expect(resolveWorkspacePath(ws, '.gitignore', { forWrite: true })).resolves.toMatchObject({
      relative: '.gitignore',
      kind: 'file',
    });
    await expect(resolveWorkspacePath(ws, '.git/config', { forWrite: false })).resolves.toMatchObject({
      relative: '.git/config',
      kind: 'missing',
    });
  });

  it('accepts paths inside, including absolute ones and links that stay inside', async () => {
    await expect(resolveWorkspacePath(ws, 'src/index.ts', { forWrite: false })).resolves.toMatchObject({
      relative: 'src/index.ts',
      kind: 'file',
      exists: true,
    });
    await expect(resolveWorkspacePath(ws, join(ws, 'README.md'), { forWrite: true })).resolves.toMatchObject({ relative: 'README.md' });
    await expect(resolveWorkspacePath(ws, 'link-in/index.ts', { forWrite: true })).resolves.toMatchObject({ relative: 'src/index.ts' });
    await expect(resolveWorkspacePath(ws, 'src/new/deeper/file.ts', { forWrite: true })).resolves.toMatchObject({
      relative: 'src/new/deeper/file.ts',
      exists: false,
    });
    await expect(resolveWorkspacePath(ws, './src/../README.md', { forWrite: false })).resolves.toMatchObject({ relative: 'README.md' });
    await expect(resolveWorkspacePath(ws, '.', { forWrite: false })).resolves.toMatchObject({ relative: '.', kind: 'directory' });
  });

  it('checks a link made after an earlier check', async () => {
    await expect(resolveWorkspacePath(ws, 'later/secret.txt', { forWrite: false })).resolves.toMatchObject({ exists: false });
    symlinkSync('../outside', join(ws, 'later'));
    await expect(resolveWorkspacePath(ws, 'later/secret.txt', { forWrite: false })).rejects.toMatchObject({ code: 'path_refused' });
  });
});
