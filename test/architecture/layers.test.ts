import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { afterEach, describe, expect, it } from 'vitest';
import { temporaryFolder } from '../helpers';
import { findViolations, importsOf, layerOf, mayImport, orderedLayers } from './layers';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

describe('the layer rule', () => {
  it('holds for every import in src', () => {
    expect(findViolations(projectRoot)).toEqual([]);
  });

  it('sorts files into the layers of the design', () => {
    const samples: Record<string, string> = {
      'src/shared/ipc/contract.ts': 'shared',
      'src/main/agent/ports/model-provider.ts': 'agent-ports',
      'src/main/agent/rules/policy.ts': 'agent-rules',
      'src/main/agent/context/prompt-builder.ts': 'agent-context',
      'src/main/agent/history/session-journal.ts': 'agent-history',
      'src/main/agent/turn/turn.ts': 'agent-turn',
      'src/main/agent/session/session-runtime.ts': 'agent-session',
      'src/main/store/database.ts': 'store',
      'src/main/settings/conf-settings-store.ts': 'settings',
      'src/main/secrets/memory-secret-store.ts': 'secrets',
      'src/main/workspace/file-walk.ts': 'workspace',
      'src/main/tools/run-command.ts': 'tools',
      'src/main/providers/provider-registry.ts': 'providers',
      'src/main/mcp/mcp-manager.ts': 'mcp',
      'src/main/ipc/handlers.ts': 'ipc',
      'src/main/core/workbench-core.ts': 'core',
      'src/main/core/wiring.ts': 'core',
      'src/main/cli/agent-cli.ts': 'cli',
      'src/main/index.ts': 'electron-edge',
      'src/main/electron/window-options.ts': 'electron-edge',
      'src/preload/index.ts': 'preload',
      'src/renderer/src/App.tsx': 'renderer',
    };
    for (const [file, layer] of Object.entries(samples)) expect(layerOf(file), file).toBe(layer);
    // An import resolves without its extension, and a folder import to the folder itself.
    expect(layerOf('src/main/core/workbench-core')).toBe('core');
    expect(layerOf('src/main/core')).toBe('core');
    expect(layerOf('src/main/index')).toBe('electron-edge');
  });

  it('refuses a file in no layer, so a new folder has to take its place in the order', () => {
    expect(() => layerOf('src/main/unplaced/thing.ts')).toThrow(/in no layer/);
    expect(() => layerOf('src/main/stray.ts')).toThrow(/in no layer/);
    expect(() => layerOf('src/main/agent/stray.ts')).toThrow(/in no layer/);
  });

  it('lets an import point down the order or sideways, never up', () => {
    expect(mayImport('tools', 'workspace')).toBe(true);
    expect(mayImport('workspace', 'workspace')).toBe(true);
    expect(mayImport('workspace', 'tools')).toBe(false);
    expect(mayImport('core', 'ipc')).toBe(true);
    expect(mayImport('ipc', 'core')).toBe(false);
    expect(mayImport('renderer', 'shared')).toBe(true);
    expect(mayImport('renderer', 'agent-ports')).toBe(false);
    expect(mayImport('agent-turn', 'agent-history')).toBe(true);
    expect(mayImport('agent-history', 'agent-turn')).toBe(false);
    expect(mayImport('agent-session', 'store')).toBe(false);
    expect(mayImport('electron-edge', 'renderer')).toBe(false);
  });

  describe('over a small tree', () => {
    let folder: ReturnType<typeof temporaryFolder> | undefined;
    afterEach(() => folder?.remove());

    function tree(files: Record<string, string>): string {
      folder = temporaryFolder('workbench-layers-');
      for (const [path, source] of Object.entries(files)) {
        mkdirSync(dirname(join(folder.path, path)), { recursive: true });
        writeFileSync(join(folder.path, path), source);
      }
      return folder.path;
    }

    it('catches an upward import between two adapter folders, and only that one', () => {
      const root = tree({
        'src/main/store/x.ts': "import { y } from '../tools/y';\nexport const x = y;\n",
        'src/main/tools/y.ts': 'export const y = 1;\n',
        'src/main/tools/z.ts': "import { x } from '../store/x';\nexport const z = x;\n",
      });
      expect(findViolations(root)).toEqual([
        { file: 'src/main/store/x.ts', specifier: '../tools/y', reason: 'store may not import tools' },
      ]);
    });

    it('catches an adapter reaching into the composition root', () => {
      const root = tree({
        'src/main/core/workbench-core.ts': 'export const core = 1;\n',
        'src/main/ipc/handlers.ts': "import { core } from '../core/workbench-core';\nexport const handlers = core;\n",
      });
      expect(findViolations(root)).toEqual([
        { file: 'src/main/ipc/handlers.ts', specifier: '../core/workbench-core', reason: 'ipc may not import core' },
      ]);
    });
  });

  it('is what the lint rule enforces too, layer by layer', async () => {
    const eslint = new ESLint({ cwd: projectRoot });
    // One importing file in every place of the order, one imported file in every folder of it.
    const importers = orderedLayers.flatMap((layer) =>
      layer.paths.map((place) => ({ layer: layer.name, file: place.endsWith('/') ? `${place}sample.ts` : place })),
    );
    const targets = orderedLayers.flatMap((layer) =>
      layer.paths.filter((place) => place.endsWith('/')).map((place) => ({ layer: layer.name, file: `${place}sample` })),
    );
    const disagreements: string[] = [];
    for (const importer of importers) {
      for (const target of targets) {
        let specifier = posix.relative(posix.dirname(importer.file), target.file);
        if (!specifier.startsWith('.')) specifier = `./${specifier}`;
        const [result] = await eslint.lintText(`import '${specifier}';\n`, { filePath: join(projectRoot, importer.file) });
        const refused = (result?.messages ?? []).some((message) => message.ruleId === 'no-restricted-imports');
        if (refused === mayImport(importer.layer, target.layer))
          disagreements.push(`${importer.file} -> ${specifier}: lint ${refused ? 'refuses' : 'allows'} it`);
      }
    }
    expect(disagreements).toEqual([]);
  });

  it('finds every form of import a file can use', () => {
    const source = [
      "import a from 'alpha';",
      "import { b } from '../beta';",
      "import type { C } from './gamma';",
      "export { d } from 'delta';",
      "import './side-effect.css';",
      "const e = await import('epsilon');",
      "const f = require('zeta');",
    ].join('\n');
    expect(importsOf(source)).toEqual(['alpha', '../beta', './gamma', 'delta', './side-effect.css', 'epsilon', 'zeta']);
  });
});
