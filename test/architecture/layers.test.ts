import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findViolations, importsOf, layerOf } from './layers';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

describe('the layer rule', () => {
  it('holds for every import in src', () => {
    expect(findViolations(projectRoot)).toEqual([]);
  });

  it('sorts files into the layers of the design', () => {
    expect(layerOf('src/shared/ipc/contract.ts')).toBe('shared');
    expect(layerOf('src/main/agent/session-runtime.ts')).toBe('agent');
    expect(layerOf('src/main/store/database.ts')).toBe('adapter');
    expect(layerOf('src/main/electron/window-options.ts')).toBe('electron-edge');
    expect(layerOf('src/main/index.ts')).toBe('electron-edge');
    expect(layerOf('src/renderer/src/App.tsx')).toBe('renderer');
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
