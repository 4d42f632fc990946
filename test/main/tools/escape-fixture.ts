import { execFileSync } from 'node:child_process';
import {
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Tool } from '../../../src/main/agent/ports/tools';
import type { FolderAccess } from '../../../src/main/workspace/folder-access';
import { findRipgrep } from '../../../src/main/tools/search';
import { workspaceTools } from '../../../src/main/tools/workspace-tools';

/** Text every file outside the workspace holds; no tool output may ever contain it. */
export const secret = 'SECRET-7f3a';
/** What the outside file behind the workspace's hard link holds (it may be read, never changed). */
export const sharedText = 'shared through a hard link, seen from both sides\n';
const ripgrep = findRipgrep();

/** A name that must never appear in a system folder a link points at. */
export const probe = 'workbench-corpus-probe';

export interface Fixture {
  readonly base: string;
  readonly ws: string;
  readonly outside: string;
  readonly dataDir: string;
  /** The file tools, searching with the built-in search. */
  readonly tools: Map<string, Tool>;
  /** The same tools searching with ripgrep, when it is installed. */
  readonly ripgrepTools: Map<string, Tool> | null;
  close(): Promise<void>;
}

/**
 * A workspace full of ways out, next to an `outside` folder of secrets: links to outside in every
 * position (relative, absolute, chained, through a link that stays inside), loops, links to
 * nothing, links to system folders and devices, a hard link to an outside file, and on request a
 * FIFO and a socket.
 */
export async function makeFixture(base: string, options: { access?: FolderAccess; special?: boolean } = {}): Promise<Fixture> {
  const ws = join(base, 'ws');
  const outside = join(base, 'outside');
  const dataDir = join(base, 'data');
  for (const dir of [ws, join(outside, 'dir'), join(ws, 'src', 'lib'), join(ws, 'deep', 'er'), join(ws, '.git'), dataDir])
    mkdirSync(dir, { recursive: true });
  writeFileSync(join(outside, 'secret.txt'), `${secret}: the outside secret\n`);
  writeFileSync(join(outside, 'dir', 'inner.txt'), `${secret}: inner secret\n`);
  writeFileSync(join(outside, 'hard-target.txt'), sharedText);
  writeFileSync(join(ws, 'README.md'), 'hello readme, see the source\n');
  writeFileSync(join(ws, '.gitignore'), 'ignored.log\n');
  writeFileSync(join(ws, 'src', 'index.ts'), 'export const hello = "here";\n');
  writeFileSync(join(ws, 'src', 'lib', 'util.ts'), 'export const other = "value";\n');
  writeFileSync(join(ws, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  linkSync(join(outside, 'hard-target.txt'), join(ws, 'hard.txt'));
  const links: Array<[string, string]> = [
    ['link-out', '../outside'],
    ['link-out-abs', outside],
    ['src/link-up', '../../outside'],
    ['deep/er/link-up', '../../../outside'],
    ['file-out', '../outside/secret.txt'],
    ['file-out-abs', join(outside, 'secret.txt')],
    ['src/out-file', '../../outside/secret.txt'],
    ['c1', 'c2'],
    ['c2', 'c3'],
    ['c3', '../outside/secret.txt'],
    ['in-then-out', 'link-out'],
    ['link-in', 'src'],
    ['link-git', '.git'],
    ['link-to-hard', 'hard.txt'],
    ['parent-link', base],
    ['dot-dot', '..'],
    ['root-link', '/'],
    ['etc-link', '/etc'],
    ['proc-root', '/proc/self/root'],
    ['devnull', '/dev/null'],
    ['link-dev-zero', '/dev/zero'],
    ['loop-a', 'loop-b'],
    ['loop-b', 'loop-a'],
    ['self', 'self'],
    ['dangling', 'nowhere/at/all'],
    ['dangling-out', '../outside/missing'],
    ['link-pipe', 'pipe'],
  ];
  for (const [path, target] of links) symlinkSync(target, join(ws, path));
  let server: Server | null = null;
  if (options.special) {
    execFileSync('mkfifo', [join(ws, 'pipe')]);
    const listening = createServer();
    await new Promise<void>((resolve) => listening.listen(join(ws, 'sock'), resolve));
    server = listening;
  }
  let id = 0;
  const toolsWith = (ripgrep: string | null) =>
    new Map(
      workspaceTools({
        dataDir,
        ripgrep,
        newId: () => `entry${(id += 1)}`,
        now: () => 1_700_000_000_000,
        ...(options.access ? { folderAccess: options.access } : {}),
      }).map((tool) => [tool.name, tool]),
    );
  return {
    base,
    ws,
    outside,
    dataDir,
    tools: toolsWith(null),
    ripgrepTools: ripgrep ? toolsWith(ripgrep) : null,
    close: () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
  };
}

/**
 * A temporary folder on a memory file system when the machine has one: the corpus and the race
 * make and remove thousands of small files, which a slow disk turns from seconds into tens of
 * seconds. Nothing checked depends on the file system (links, hard links, FIFOs and sockets work
 * the same on tmpfs).
 */
export function fastTemporaryFolder(prefix: string): { path: string; remove: () => void } {
  const parent = lstatSync('/dev/shm', { throwIfNoEntry: false })?.isDirectory() ? '/dev/shm' : tmpdir();
  const path = mkdtempSync(join(parent, prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Runs a tool as the runtime does: parse, then execute. Answers the output or the error's message. */
export async function runTool(tools: Map<string, Tool>, name: string, raw: unknown, workspacePath: string): Promise<string> {
  const tool = tools.get(name);
  if (!tool) throw new Error(`no tool ${name}`);
  const parsed = tool.parse(raw);
  if (!parsed.ok) throw new Error(parsed.message);
  const outcome = await tool.execute(parsed.input, {
    signal: new AbortController().signal,
    sessionId: 's',
    toolCallId: 'c',
    workspacePath,
    emitOutput: () => undefined,
  });
  return outcome.output;
}

/**
 * Everything about the files under `folder` that a write, a rename or a delete would change:
 * kind, size, inode, mode, mtime, content and link targets (not the link count: replacing the
 * workspace's hard link lowers it, as it should). Names in `skip` are left out.
 */
export function snapshot(folder: string, skip: readonly string[] = []): string {
  const lines: string[] = [];
  const visit = (path: string, shown: string): void => {
    for (const name of readdirSync(path).sort()) {
      if (skip.includes(name)) continue;
      const full = join(path, name);
      const info = lstatSync(full);
      const kind = info.isSymbolicLink() ? 'link' : info.isDirectory() ? 'dir' : info.isFile() ? 'file' : 'other';
      const detail =
        kind === 'file' ? JSON.stringify(readFileSync(full, 'utf8')) : kind === 'link' ? readlinkSync(full) : kind === 'dir' ? '' : '';
      lines.push(`${shown}${name} ${kind} ${info.ino} ${info.mode} ${info.size} ${info.mtimeMs} ${detail}`);
      if (kind === 'dir') visit(full, `${shown}${name}/`);
    }
  };
  visit(folder, '');
  return lines.join('\n');
}

/** Whether a probe file appeared in a system folder one of the links points at. */
export function probeLeaked(): boolean {
  return existsSync(join('/etc', probe)) || existsSync(join('/', probe));
}
