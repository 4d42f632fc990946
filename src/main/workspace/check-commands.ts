/*
 * The commands that could check a workspace's work, as the project itself says: its package.json scripts, Makefile
 * targets, Python, Rust and Go project files, and the commands its instruction files name. Suggestions only: the
 * person chooses one (or writes their own) before anything runs.
 */

import type { WorkspaceReader } from './workspace-reader';
import { instructionFileNames } from './instruction-files';

/** A command that could check the work, and where it was found. */
export interface CheckSuggestion {
  readonly command: string;
  readonly from: string;
}

/** package.json scripts that check, best first. */
const scriptNames = ['check', 'typecheck', 'type-check', 'lint', 'test'];
/** Makefile targets that check, best first. */
const makeTargets = ['check', 'lint', 'test'];
/** Words that make a command named in an instruction file one that checks. */
const checkWords = /\b(test|tests|check|lint|typecheck|type-check|clippy|vet|mypy|pyright|ruff|pytest|tsc)\b/;
const maxSuggestions = 8;
const maxFileBytes = 256 * 1024;

/** The package manager a Node project uses, by its lock file. */
function packageManager(names: ReadonlySet<string>): string {
  if (names.has('pnpm-lock.yaml')) return 'pnpm';
  if (names.has('yarn.lock')) return 'yarn';
  if (names.has('bun.lockb') || names.has('bun.lock')) return 'bun';
  return 'npm';
}

async function text(reader: WorkspaceReader, path: string): Promise<string | null> {
  const data = await reader.readFile(path, maxFileBytes).catch(() => null);
  return data === null ? null : data.toString('utf8');
}

/**
 * The check commands a workspace suggests, at most eight, each once: from package.json (by its lock file's package
 * manager), the Makefile, pyproject.toml, Cargo.toml, go.mod, then the commands in backticks that the instruction files
 * name with a word such as test, lint or check. Files that cannot be read or parsed suggest nothing.
 */
export async function suggestCheckCommands(reader: WorkspaceReader): Promise<CheckSuggestion[]> {
  const found: CheckSuggestion[] = [];
  const add = (command: string, from: string): void => {
    const trimmed = command.trim();
    if (trimmed === '' || trimmed.length > 500 || found.some((item) => item.command === trimmed)) return;
    found.push({ command: trimmed, from });
  };
  const names = new Set((await reader.list('').catch(() => [])).map((entry) => entry.name));

  if (names.has('package.json')) {
    try {
      const manifest: unknown = JSON.parse((await text(reader, 'package.json')) ?? '{}');
      const scripts = typeof manifest === 'object' && manifest !== null && 'scripts' in manifest ? manifest.scripts : null;
      if (typeof scripts === 'object' && scripts !== null) {
        const manager = packageManager(names);
        for (const name of scriptNames)
          if (typeof (scripts as Record<string, unknown>)[name] === 'string')
            add(manager === 'npm' && name === 'test' ? 'npm test' : `${manager} run ${name}`, `package.json script "${name}"`);
      }
    } catch {
      // A package.json that is not JSON suggests nothing.
    }
  }
  for (const makefile of ['Makefile', 'makefile', 'GNUmakefile']) {
    if (!names.has(makefile)) continue;
    const targets = new Set([...((await text(reader, makefile)) ?? '').matchAll(/^([A-Za-z][\w-]*)\s*:(?!=)/gm)].map((match) => match[1]));
    for (const target of makeTargets) if (targets.has(target)) add(`make ${target}`, `${makefile} target "${target}"`);
    break;
  }
  if (names.has('pyproject.toml')) {
    const project = (await text(reader, 'pyproject.toml')) ?? '';
    if (/^\[tool\.mypy\]/m.test(project)) add('mypy .', 'pyproject.toml [tool.mypy]');
    if (/^\[tool\.pyright\]/m.test(project)) add('pyright', 'pyproject.toml [tool.pyright]');
    if (/^\[tool\.ruff/m.test(project)) add('ruff check .', 'pyproject.toml [tool.ruff]');
    if (/^\[tool\.pytest/m.test(project) || /\bpytest\b/.test(project)) add('pytest -q', 'pyproject.toml (pytest)');
  }
  if (names.has('Cargo.toml')) {
    add('cargo check', 'Cargo.toml');
    add('cargo test', 'Cargo.toml');
  }
  if (names.has('go.mod')) {
    add('go vet ./...', 'go.mod');
    add('go test ./...', 'go.mod');
  }
  for (const name of instructionFileNames) {
    if (name.includes('/') || !names.has(name)) continue;
    for (const match of ((await text(reader, name)) ?? '').matchAll(/`([^`\n]{2,200})`/g)) {
      const command = match[1] ?? '';
      if (checkWords.test(command) && /^[\w./-]+(\s|$)/.test(command)) add(command, name);
    }
  }
  return found.slice(0, maxSuggestions);
}
