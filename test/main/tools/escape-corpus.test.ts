import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestOptions } from 'vitest';
import { pathAccess, procFdAccess, type FolderAccess } from '../../../src/main/workspace/folder-access';
import { openThenCheckAccess } from '../../../src/main/workspace/checked-open';
import {
  fastTemporaryFolder,
  makeFixture,
  probe,
  type Fixture,
  probeLeaked,
  runTool,
  secret,
  sharedText,
  snapshot,
} from './escape-fixture';
import { needs, procFs, specialFiles, symlinks } from '../../platform';

/**
 * Which tools must refuse a path: `all`; `all-but-delete` for a link at the last name that leads
 * out (delete moves the link itself, which lies inside); `writes` for protected names that may be
 * read; `none` where only the invariants are checked.
 */
type Refused = 'all' | 'all-but-delete' | 'writes' | 'none';

const ws = '<ws>';
const outside = '<outside>';

const corpus: Array<[string, Refused]> = [
  // Traversal.
  ['../outside/secret.txt', 'all'],
  ['../../etc/passwd', 'all'],
  ['src/../../outside/secret.txt', 'all'],
  ['src/../../../../../../etc/passwd', 'all'],
  ['./../outside', 'all'],
  ['..', 'all'],
  ['a/b/../../../outside/secret.txt', 'all'],
  ['../ws/README.md', 'all'],
  ['src/lib/../../link-out/secret.txt', 'all'],
  ['newdir/../link-out/new.txt', 'all'],
  // Absolute paths.
  ['/etc/passwd', 'all'],
  ['/tmp', 'all'],
  [`${outside}/secret.txt`, 'all'],
  [`${outside}/../ws-other`, 'all'],
  ['//etc/passwd', 'all'],
  [`${ws}/../outside/secret.txt`, 'all'],
  [`${ws}x/secret.txt`, 'all'],
  // Links to outside: first, middle and last position; relative, absolute, chained.
  ['link-out', 'all-but-delete'],
  ['link-out/', 'all-but-delete'],
  ['link-out/secret.txt', 'all'],
  ['link-out/dir', 'all'],
  ['link-out/dir/inner.txt', 'all'],
  ['link-out/new-folder/new.txt', 'all'],
  ['link-out-abs', 'all-but-delete'],
  ['link-out-abs/secret.txt', 'all'],
  ['src/link-up', 'all-but-delete'],
  ['src/link-up/secret.txt', 'all'],
  ['deep/er/link-up', 'all-but-delete'],
  ['deep/er/link-up/secret.txt', 'all'],
  ['deep/er/link-up/dir/inner.txt', 'all'],
  ['file-out', 'all-but-delete'],
  ['file-out-abs', 'all-but-delete'],
  ['src/out-file', 'all-but-delete'],
  ['c1', 'all-but-delete'],
  ['c1/x', 'all'],
  ['in-then-out', 'all-but-delete'],
  ['in-then-out/secret.txt', 'all'],
  ['link-in/link-up/secret.txt', 'all'],
  ['link-in/../link-out/secret.txt', 'all'],
  ['parent-link/outside/secret.txt', 'all'],
  ['parent-link/ws/README.md', 'all'],
  ['dot-dot', 'all-but-delete'],
  ['dot-dot/outside/secret.txt', 'all'],
  [`root-link/etc/${probe}`, 'all'],
  [`etc-link/${probe}`, 'all'],
  ['etc-link', 'all-but-delete'],
  [`proc-root/${probe}`, 'all'],
  // Loops and links to nothing.
  ['loop-a', 'all-but-delete'],
  ['loop-a/x', 'all'],
  ['self', 'all-but-delete'],
  ['self/x', 'all'],
  ['dangling', 'all-but-delete'],
  ['dangling/new-file.txt', 'all'],
  ['dangling-out', 'all-but-delete'],
  ['dangling-out/x', 'all'],
  // A hard link to an outside file: read with a note, replaced on write, the outside name untouched.
  ['hard.txt', 'none'],
  ['./hard.txt', 'none'],
  ['link-to-hard', 'none'],
  ['src/../hard.txt', 'none'],
  // Encodings and texts that mean another place.
  ['%2e%2e/outside/secret.txt', 'all'],
  ['..%2foutside%2fsecret.txt', 'all'],
  ['%2e%2e%2f', 'all'],
  ['src%00.txt', 'all'],
  ['src/index.ts\u0000.txt', 'all'],
  ['src/\u0007bell', 'all'],
  ['..\\outside\\secret.txt', 'all'],
  ['src\\..\\..\\outside', 'all'],
  ['file:///etc/passwd', 'all'],
  [`file://${outside}/secret.txt`, 'all'],
  ['~/.ssh/id_rsa', 'all'],
  ['~root/x', 'all'],
  ['$HOME/x', 'all'],
  ['${PWD}/../outside', 'all'],
  ['$(echo ..)/outside/secret.txt', 'all'],
  ['`echo ..`/outside', 'all'],
  ['C:/Windows/win.ini', 'all'],
  ['C:secret.txt', 'all'],
  ['//server/share/x', 'all'],
  ['secret.txt::$DATA', 'all'],
  ['src./index.ts', 'all'],
  ['src /index.ts', 'all'],
  [' src/index.ts', 'all'],
  ['.../outside', 'all'],
  // Look-alike dots and slashes, invisible characters.
  ['\u2024\u2024/outside/secret.txt', 'all'],
  ['\uFF0E\uFF0E\uFF0Foutside\uFF0Fsecret.txt', 'all'],
  ['src\u2215..\u2215..\u2215outside', 'all'],
  ['..\u2044outside', 'all'],
  ['.\u200B./outside/secret.txt', 'all'],
  ['src/\u202Eexe.txt', 'all'],
  ['\uFE52\uFE52/outside/secret.txt', 'all'],
  ['\u2025/outside/secret.txt', 'all'],
  ['\u3002\u3002/outside', 'all'],
  ['.g\u200Cit/config', 'all'],
  // Case and Unicode forms of protected names: readable, never written.
  ['.GIT/config', 'writes'],
  ['.Git/HEAD', 'writes'],
  ['link-git/HEAD', 'writes'],
  ['.ENV', 'writes'],
  ['.\uFF45nv', 'writes'],
  ['.', 'writes'],
  // Special files.
  ['pipe', 'all'],
  ['link-pipe', 'all-but-delete'],
  ['sock', 'all'],
  ['devnull', 'all-but-delete'],
  ['link-dev-zero', 'all-but-delete'],
  // Paths that stay inside: every tool may act, and still nothing outside changes.
  ['README.md', 'none'],
  ['link-in/index.ts', 'none'],
  [`${ws}/README.md`, 'none'],
  ['new/folder/file.txt', 'none'],
  ['src', 'none'],
];

interface Call {
  readonly tool: string;
  readonly input: (path: string) => Record<string, unknown>;
  readonly ripgrep?: boolean;
}

const calls: Call[] = [
  { tool: 'list_files', input: (path) => ({ path, includeIgnored: true }) },
  { tool: 'read_file', input: (path) => ({ path }) },
  { tool: 'search', input: (path) => ({ path, pattern: 'e' }) },
  { tool: 'search', input: (path) => ({ path, pattern: 'e' }), ripgrep: true },
  { tool: 'edit_file', input: (path) => ({ path, oldText: 'e', newText: 'E', replaceAll: true }) },
  { tool: 'write_file', input: (path) => ({ path, content: 'the corpus wrote this\n' }) },
  { tool: 'delete', input: (path) => ({ path }) },
];

function mustRefuse(refused: Refused, tool: string): boolean {
  if (refused === 'all') return true;
  if (refused === 'all-but-delete') return tool !== 'delete';
  if (refused === 'writes') return tool === 'write_file' || tool === 'edit_file' || tool === 'delete';
  return false;
}

/** Temporary files a write left behind, anywhere in the workspace (links not followed). */
function leftovers(folder: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(folder)) {
    const full = join(folder, name);
    if (/\.[0-9a-f]{12}\.tmp$/.test(name)) found.push(full);
    if (lstatSync(full).isDirectory()) found.push(...leftovers(full));
  }
  return found;
}

// The fixture holds links, a named pipe and a socket; the checked paths run wherever those can be made.
const accesses: Array<[string, FolderAccess, boolean, TestOptions]> = [
  ['/proc/self/fd walk (Linux)', procFdAccess, true, needs(procFs, symlinks, specialFiles)],
  ['checked paths with open folders', pathAccess({ noFollowAny: false, holdFolders: true }), false, needs(symlinks, specialFiles)],
  ['checked paths without folder handles', pathAccess({ noFollowAny: false, holdFolders: false }), false, needs(symlinks, specialFiles)],
  // Windows' way, run here on a file system whose opens follow links as Windows' do: only the checks after it refuse.
  ['open then check (as on Windows)', openThenCheckAccess(), false, needs(symlinks, specialFiles)],
];

for (const [name, access, withRipgrep, needed] of accesses)
  describe(`the escape corpus through ${name}`, needed, () => {
    let folder: ReturnType<typeof fastTemporaryFolder>;
    let counter = 0;
    // Making a fixture costs tens of file operations, so one is kept for as long as the workspace is
    // unchanged (every refused case) and made again after a case that changed it.
    let fixture: Fixture | null = null;
    let unchanged = '';
    const freshFixture = async (): Promise<Fixture> => {
      if (fixture && snapshot(fixture.ws) === unchanged) return fixture;
      await fixture?.close();
      fixture = await makeFixture(join(folder.path, `case${(counter += 1)}`), { access, special: true });
      unchanged = snapshot(fixture.ws);
      return fixture;
    };
    beforeAll(() => {
      folder = fastTemporaryFolder('workbench-escape-');
    });
    afterAll(async () => {
      await fixture?.close();
      folder.remove();
    });

    it('has at least eighty cases', () => {
      expect(corpus.length).toBeGreaterThanOrEqual(80);
    });

    it.each(corpus)('%j: nothing outside is changed or shown', async (template, refused) => {
      const { base, ws: workspace, outside: outsideFolder, tools: builtinSearchTools, ripgrepTools } = await freshFixture();
      const path = template.replace(ws, workspace).replace(outside, outsideFolder);
      const before = snapshot(base, ['ws', 'data']);
      for (const call of calls) {
        const tools = call.ripgrep ? (withRipgrep ? ripgrepTools : null) : builtinSearchTools;
        if (!tools) continue;
        const label = `${call.tool}${call.ripgrep ? ' (ripgrep)' : ''} ${JSON.stringify(path)}`;
        let text: string;
        let code: string | undefined;
        try {
          text = await runTool(tools, call.tool, call.input(path), workspace);
        } catch (error) {
          text = (error as Error).message;
          code = (error as { code?: string }).code;
          // Every failure is one of the app's typed errors, with a message for the model.
          expect(code, `${label}: ${text}`).toMatch(/^(path_refused|invalid_input)$/);
        }
        if (mustRefuse(refused, call.tool)) expect(code, `${label} answered: ${text}`).toBe('path_refused');
        expect(text, label).not.toContain(secret);
        expect(snapshot(base, ['ws', 'data']), label).toBe(before);
        expect(readFileSync(join(outsideFolder, 'hard-target.txt'), 'utf8'), label).toBe(sharedText);
        expect(probeLeaked(), label).toBe(false);
      }
      expect(leftovers(workspace)).toEqual([]);
    });
  });
