import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { suggestCheckCommands } from '../../../src/main/workspace/check-commands';
import { WorkspaceFiles } from '../../../src/main/workspace/workspace-files';
import { temporaryFolder } from '../../helpers';

const opened: Array<{ remove(): void }> = [];
afterEach(() => {
  for (const folder of opened.splice(0)) folder.remove();
});

async function suggested(files: Record<string, string>) {
  const folder = temporaryFolder('workbench-checks-');
  opened.push(folder);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(folder.path, path, '..'), { recursive: true });
    writeFileSync(join(folder.path, path), text);
  }
  const reader = new WorkspaceFiles(folder.path).reader();
  try {
    return await suggestCheckCommands(reader);
  } finally {
    reader.close();
  }
}

describe('the check commands a workspace suggests', () => {
  it('a Node project: its checking scripts, best first, with the package manager its lock file names', async () => {
    expect(
      await suggested({
        'package.json': JSON.stringify({ scripts: { build: 'vite build', test: 'vitest', typecheck: 'tsc --noEmit', lint: 'eslint .' } }),
        'pnpm-lock.yaml': '',
      }),
    ).toEqual([
      { command: 'pnpm run typecheck', from: 'package.json script "typecheck"' },
      { command: 'pnpm run lint', from: 'package.json script "lint"' },
      { command: 'pnpm run test', from: 'package.json script "test"' },
    ]);
    expect(await suggested({ 'package.json': JSON.stringify({ scripts: { test: 'jest' } }) })).toEqual([
      { command: 'npm test', from: 'package.json script "test"' },
    ]);
  });

  it('a Makefile, Python, Rust and Go project files, and the commands the instruction files name', async () => {
    const found = await suggested({
      Makefile: 'build:\n\tcc main.c\ncheck: build\n\t./run-tests\nVAR := 1\n',
      'pyproject.toml': '[project]\nname = "x"\n[tool.ruff]\nline-length = 100\n[tool.pytest.ini_options]\naddopts = "-q"\n',
      'Cargo.toml': '[package]\nname = "x"\n',
      'go.mod': 'module example.com/x\n',
      'AGENTS.md': 'Run `make check` before you finish, and `./scripts/lint.sh --fix` for style. Never run `rm -rf build`.\n',
    });
    expect(found.map((item) => item.command)).toEqual([
      'make check',
      'ruff check .',
      'pytest -q',
      'cargo check',
      'cargo test',
      'go vet ./...',
      'go test ./...',
      './scripts/lint.sh --fix',
    ]);
  });

  it('suggests nothing from a package.json that is not JSON, or a folder with no project files', async () => {
    expect(await suggested({ 'package.json': '{ "scripts": ', 'README.md': 'Run `npm test`.' })).toEqual([]);
    expect(await suggested({})).toEqual([]);
  });
});
