import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { temporaryFolder } from '../helpers';
import { findEventFolds } from './folds';
import { sourceFiles } from './layers';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

/** The folds the design names (style item 3c): if the search stops finding one, the search is what broke. */
const knownFolds = [
  'src/shared/session-view.ts',
  'src/shared/session-view/messages.ts',
  'src/shared/session-view/tool-calls.ts',
  'src/shared/session-view/guards.ts',
  'src/shared/session-view/gates.ts',
  'src/shared/session-view/budget-gates.ts',
  'src/shared/session-view/checkpoints.ts',
  'src/shared/session-view/model-context.ts',
  'src/shared/session-view/turns.ts',
  'src/main/agent/history/audit.ts',
  'src/main/agent/history/conversation.ts',
  'src/main/agent/history/head-fold.ts',
  'src/main/cli/format-entry.ts',
  'src/main/store/journal-rows.ts',
];

describe('folds over the session events', () => {
  it('each end with a never check, so a new event type fails to compile until every fold handles it', () => {
    // The renderer's .tsx files are left out: they are checked against the DOM's types, and hold no fold today.
    const files = [...sourceFiles(join(projectRoot, 'src/main')), ...sourceFiles(join(projectRoot, 'src/shared'))];
    const folds = findEventFolds(projectRoot, files, join(projectRoot, 'src/shared/events.ts'));
    expect(folds.map((fold) => fold.file)).toEqual(expect.arrayContaining(knownFolds));
    expect(folds.filter((fold) => !fold.exhaustive).map((fold) => `${fold.file}:${fold.line}`)).toEqual([]);
  }, 60_000);

  describe('over a small tree', () => {
    let folder: ReturnType<typeof temporaryFolder> | undefined;
    afterEach(() => folder?.remove());

    it('tells a fold that ignores what it does not list from one that ends with a never check, and skips other unions', () => {
      folder = temporaryFolder('workbench-folds-');
      const events = join(folder.path, 'events.ts');
      const folds = join(folder.path, 'folds.ts');
      writeFileSync(events, "export type RuntimeEvent = { type: 'started'; id: string } | { type: 'finished'; id: string };\n");
      writeFileSync(
        folds,
        [
          "import type { RuntimeEvent } from './events';",
          "type StreamEvent = { type: 'started' } | { type: 'delta'; text: string };",
          'export function closed(event: RuntimeEvent): string {',
          '  switch (event.type) {',
          "    case 'started':",
          "    case 'finished':",
          '      return event.id;',
          '    default: {',
          '      const unhandled: never = event;',
          '      throw new Error(String(unhandled));',
          '    }',
          '  }',
          '}',
          'export function open(event: RuntimeEvent): string {',
          '  switch (event.type) {',
          "    case 'started':",
          '      return event.id;',
          '    default:',
          "      return '';",
          '  }',
          '}',
          'export function other(event: StreamEvent): string {',
          '  switch (event.type) {',
          "    case 'delta':",
          '      return event.text;',
          '    default:',
          "      return '';",
          '  }',
          '}',
        ].join('\n'),
      );
      expect(findEventFolds(folder.path, [folds], events)).toEqual([
        { file: 'folds.ts', line: 4, exhaustive: true },
        { file: 'folds.ts', line: 15, exhaustive: false },
      ]);
    }, 60_000);
  });
});
