import { mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { allowedIn, Diagnostics } from '../../../src/main/diagnostics/diagnostics';
import { detectSandbox } from '../../../src/main/tools/sandbox';
import { WorkspaceFiles } from '../../../src/main/workspace/workspace-files';
import { defaultDiagnosticsSettings, problemsText, type CheckedLanguage, type DiagnosticsSettings } from '../../../src/shared/diagnostics';
import { temporaryFolder } from '../../helpers';
import { installFakeServer, type FakeServer } from './fake-servers';

/** The PATH with this project's own language servers (its dev dependencies) first. */
const serversOnPath = { ...process.env, PATH: `${resolve('node_modules/.bin')}${delimiter}${process.env['PATH'] ?? ''}` };
/** A PATH with no language server on it (Node's folder only, for the fake servers' `#!/usr/bin/env node`). */
const noServers = { ...process.env, PATH: `${resolve(process.execPath, '..')}${delimiter}/usr/bin${delimiter}/bin` };

const opened: Array<{ dispose?(): void; remove?(): void }> = [];
afterEach(() => {
  for (const item of opened.splice(0)) {
    item.dispose?.();
    item.remove?.();
  }
});

function workspace(files: Record<string, string>): string {
  const folder = temporaryFolder('workbench-diagnostics-');
  opened.push(folder);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(folder.path, path, '..'), { recursive: true });
    writeFileSync(join(folder.path, path), text);
  }
  return folder.path;
}

function checker(
  root: string,
  options: { env?: NodeJS.ProcessEnv; settings?: Partial<DiagnosticsSettings>; allow?: CheckedLanguage[]; restricted?: boolean } = {},
) {
  const sandbox = detectSandbox();
  const diagnostics = new Diagnostics({
    settings: () => ({
      ...defaultDiagnosticsSettings,
      allowed: (options.allow ?? ['typescript', 'python']).map((language) => ({ workspacePath: root, language })),
      ...options.settings,
    }),
    filesOf: (path) => new WorkspaceFiles(path),
    env: options.env ?? serversOnPath,
    ...(options.restricted ? { restricted: () => true } : {}),
    // As the app runs them: in the sandbox, where this machine has one.
    ...(sandbox.available ? { sandbox } : {}),
  });
  opened.push(diagnostics);
  return Object.assign((paths: string[]) => diagnostics.check({ workspacePath: root, paths, signal: new AbortController().signal }), {
    diagnostics,
  });
}

describe('problems from real language servers', () => {
  it('typescript-language-server: a type error in a changed file, errors first, with the lines the model reads', async () => {
    const root = workspace({
      'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, noUnusedLocals: true } }),
      'src/price.ts': 'export function price(cents: number): string {\n  const unused = 1;\n  return cents;\n}\n',
      'src/ok.ts': 'export const ok = 1;\n',
    });
    const check = checker(root);
    const { diagnostics } = check;
    const report = await check(['src/price.ts', 'src/ok.ts', 'README.md']);
    expect(report?.checked).toEqual([
      { path: 'src/ok.ts', errors: 0, warnings: 0 },
      { path: 'src/price.ts', errors: 2, warnings: 0 },
    ]);
    expect(
      report?.problems.map((problem) => `${problem.path}:${problem.line}:${problem.column} ${problem.severity} ${problem.code}`),
    ).toEqual(['src/price.ts:2:9 error 6133', 'src/price.ts:3:3 error 2322']);
    const text = problemsText(report ?? { checked: [], problems: [], errors: 0, warnings: 0, notes: [], unallowed: [] });
    expect(text).toContain('Problems in the changed files (src/ok.ts, src/price.ts): 2 errors, 0 warnings.');
    expect(text).toContain("src/price.ts:3:3 error: Type 'number' is not assignable to type 'string'. (typescript 2322)");

    // The same server is asked again after the file is fixed: it says the file is clean now. It lived on meanwhile,
    // past the three seconds after which typescript-language-server looks for the app's process (in a sandbox with
    // its own process ids it is not told one it could not see, or it would take the app for gone and exit).
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    writeFileSync(join(root, 'src/price.ts'), 'export function price(cents: number): string {\n  return String(cents);\n}\n');
    const fixed = await check(['src/price.ts']);
    expect(fixed?.checked).toEqual([{ path: 'src/price.ts', errors: 0, warnings: 0 }]);
    expect(fixed?.notes).toEqual([]);
    expect(diagnostics.serversStarted).toBe(1);
  });

  it('a file that stays clean is answered at once each time, and names a server spells its own way are matched', async () => {
    const root = workspace({
      'src/+routes/+page.ts': 'export const page = 1;\n',
      'src/(group)/@slot.ts': 'export const slot: number = "x";\n',
    });
    // A limit far above a server's answer even on a loaded machine: a check that waited for it would take twice as long
    // as the bound below, so the bound tells one from the other without timing the server.
    const timeLimitMs = 30_000;
    const check = checker(root, { settings: { timeLimitMs } });
    for (const value of [2, 3, 4]) {
      writeFileSync(join(root, 'src/+routes/+page.ts'), `export const page = ${value};\n`);
      const started = performance.now();
      const report = await check(['src/+routes/+page.ts', 'src/(group)/@slot.ts']);
      // Not the time limit: a server publishes a file's problems when it is opened, and each check opens it again.
      expect(performance.now() - started).toBeLessThan(timeLimitMs / 2);
      expect(report?.notes).toEqual([]);
      expect(report?.checked).toEqual([
        { path: 'src/(group)/@slot.ts', errors: 1, warnings: 0 },
        { path: 'src/+routes/+page.ts', errors: 0, warnings: 0 },
      ]);
    }
  }, 120_000);

  it('a server runs while a session works in its folder, and stops when none does', async () => {
    const root = workspace({ 'a.ts': 'export const a: number = "x";\n' });
    const other = workspace({ 'b.ts': 'export const b = 1;\n' });
    const check = checker(root);
    expect((await check(['a.ts']))?.errors).toBe(1);
    expect(check.diagnostics.running).toBe(1);
    check.diagnostics.keepOnly([root, other]);
    expect(check.diagnostics.running).toBe(1);
    check.diagnostics.keepOnly([other]);
    expect(check.diagnostics.running).toBe(0);
    // The next edit there starts it again.
    expect((await check(['a.ts']))?.errors).toBe(1);
    expect(check.diagnostics.serversStarted).toBe(2);
  });

  it('pyright: an operator on the wrong types', async () => {
    const root = workspace({ 'app/total.py': 'def total(count: int) -> int:\n    return count + "items"\n' });
    const report = await checker(root)(['app/total.py']);
    expect(report?.errors).toBe(1);
    expect(report?.problems[0]).toMatchObject({ path: 'app/total.py', line: 2, severity: 'error', source: 'Pyright' });
  });

  it('checks nothing of a language turned off, or of files no server reads', async () => {
    const root = workspace({ 'a.ts': 'export const a: number = "x";\n', 'notes.md': '# hi\n' });
    expect(await checker(root, { settings: { languages: ['python'] } })(['a.ts', 'notes.md'])).toBeNull();
  });
});

describe('a server that cannot be used gives a note, never a stuck or failed edit', () => {
  it('asks the person first: a server not allowed in this folder does not run', async () => {
    const root = workspace({ 'a.ts': 'export const a: number = "x";\n' });
    const check = checker(root, { allow: [] });
    const report = await check(['a.ts']);
    expect(report).toMatchObject({ checked: [], problems: [], unallowed: ['typescript'] });
    expect(report?.notes).toEqual([
      'TypeScript and JavaScript files are not checked until the person allows typescript-language-server to run in this folder.',
    ]);
    // Said once: the next edit is not told again, but the person still sees what waits.
    expect(await check(['a.ts'])).toMatchObject({ notes: [], unallowed: ['typescript'] });
  });

  it('a server that is not there', async () => {
    const root = workspace({ 'a.py': 'x = 1\n' });
    const report = await checker(root, { env: noServers })(['a.py']);
    expect(report?.notes).toEqual([
      "Python files are not checked: pyright (pyright-langserver) was not found in the workspace's node_modules/.bin or on the PATH.",
    ]);
  });

  it.each<[FakeServer, RegExp]>([
    [
      'silent',
      /^TypeScript and JavaScript checks failed: typescript-language-server it did not answer to start within 2 s\. The change stands\.$/,
    ],
    [
      'exits',
      /^TypeScript and JavaScript checks failed: typescript-language-server (it exited with code 3|its connection closed): cannot read my configuration\. The change stands\.$/,
    ],
    [
      'garbage',
      /^TypeScript and JavaScript checks failed: typescript-language-server (it sent what is not the language server protocol|its connection closed|it did not answer to start within 2 s)/,
    ],
    [
      'dies-after-start',
      /^TypeScript and JavaScript checks failed: typescript-language-server (it exited with code 9|its connection closed)/,
    ],
  ])('a server that is %s', async (kind, note) => {
    const root = workspace({ 'a.ts': 'export const a = 1;\n' });
    installFakeServer(root, kind);
    const started = performance.now();
    const report = await checker(root, { env: noServers, settings: { timeLimitMs: 2_000 } })(['a.ts']);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(report?.problems).toEqual([]);
    expect(report?.notes).toHaveLength(1);
    expect(report?.notes[0]).toMatch(note);
  });

  it("never starts a folder's own server where the folder is not trusted: only one on the PATH", async () => {
    const root = workspace({ 'a.ts': 'export const a = 1;\n' });
    installFakeServer(root, 'exits');
    const report = await checker(root, { env: noServers, restricted: true })(['a.ts']);
    expect(report?.notes).toEqual([
      "TypeScript and JavaScript files are not checked: typescript-language-server (typescript-language-server) was not found on the PATH (the folder's own is not used: the folder is not trusted).",
    ]);
    // The same folder trusted starts its own (which fails, as this one does).
    const trusted = await checker(root, { env: noServers })(['a.ts']);
    expect(trusted?.notes[0]).toMatch(/typescript-language-server (it exited with code 3|its connection closed)/);
  });

  it('a server installed under /tmp, outside the workspace, is still there inside the sandbox', async () => {
    const root = workspace({ 'a.ts': 'export const a = 1;\n' });
    const elsewhere = workspace({});
    installFakeServer(elsewhere, 'dies-after-start');
    const report = await checker(root, {
      env: { ...noServers, PATH: `${join(elsewhere, 'node_modules', '.bin')}${delimiter}${noServers['PATH'] ?? ''}` },
    })(['a.ts']);
    // It ran (and died at the file, as it does): not "execvp … No such file", which is a private /tmp hiding it.
    expect(report?.notes[0]).toMatch(/typescript-language-server (it exited with code 9|its connection closed)/);
    expect(report?.notes[0]).not.toMatch(/execvp|No such file/);
  });

  it('stops trying a server that failed three times in a folder', async () => {
    const root = workspace({ 'a.ts': 'export const a = 1;\n' });
    installFakeServer(root, 'exits');
    const check = checker(root, { env: noServers });
    for (let attempt = 1; attempt <= 3; attempt += 1) expect((await check(['a.ts']))?.notes).toHaveLength(1);
    expect((await check(['a.ts']))?.notes[0] ?? 'none').toBe('none');
  });
});

describe("whose allowance a folder has, by the file system's case rules", () => {
  const allowed = [{ workspacePath: '/Users/me/Project', language: 'typescript' as const }];

  it('holds for the folder written in another case where case is ignored', () => {
    expect(allowedIn(allowed, 'typescript', ['/users/me/PROJECT'], true)).toBe(true);
    expect(allowedIn(allowed, 'python', ['/users/me/PROJECT'], true)).toBe(false);
  });

  it('does not hold for a folder differing in case where case is kept', () => {
    expect(allowedIn(allowed, 'typescript', ['/users/me/PROJECT'], false)).toBe(false);
    expect(allowedIn(allowed, 'typescript', ['/elsewhere', '/Users/me/Project'], false)).toBe(true);
  });
});
