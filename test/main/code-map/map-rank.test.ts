import { describe, expect, it } from 'vitest';
import type { IndexedFile } from '../../../src/main/code-map/code-index';
import { rankDefinitions, renderMap, type MapFocus } from '../../../src/main/code-map/map-rank';
import { Tagger } from '../../../src/main/code-map/tagger';

/*
 * A small project: an engine every feature uses, a date formatter one report uses, a logger two use, and features
 * that use them.
 */
const sources: Record<string, string> = {
  'core/engine.ts': 'export class Engine {\n  start(): void {}\n}\nexport function makeEngine(): Engine {\n  return new Engine();\n}\n',
  'util/format.ts': 'export function formatDate(date: Date): string {\n  return date.toISOString();\n}\n',
  'util/log.ts': 'export function logLine(text: string): void {\n  console.log(text);\n}\n',
  'feature/report.ts': 'export function report() {\n  makeEngine().start();\n  return formatDate(new Date());\n}\n',
  'feature/billing.ts': 'export function bill() {\n  makeEngine().start();\n  logLine("billed");\n}\n',
  'feature/search.ts': 'export function search() {\n  makeEngine().start();\n  logLine("searched");\n}\n',
  'feature/export.ts': 'export function exportAll() {\n  makeEngine().start();\n}\n',
};

async function project(): Promise<Array<[string, IndexedFile]>> {
  const tagger = new Tagger();
  const files: Array<[string, IndexedFile]> = [];
  for (const [path, source] of Object.entries(sources)) {
    const tagged = await tagger.tag(path, source);
    if (!tagged) throw new Error(`not tagged: ${path}`);
    files.push([
      path,
      {
        size: source.length,
        mtimeMs: 0,
        ctimeMs: 0,
        ino: 0,
        language: tagged.language,
        tags: tagged.tags,
        parseErrors: tagged.parseErrors,
      },
    ]);
  }
  return files;
}

const names = (files: Array<[string, IndexedFile]>, focus?: MapFocus): string[] =>
  rankDefinitions(files, focus).map((ranked) => ranked.tag.name);
const place = (files: Array<[string, IndexedFile]>, name: string, focus?: MapFocus): number => names(files, focus).indexOf(name);

describe('the repository map', () => {
  it('ranks first what most of the project uses', async () => {
    const files = await project();
    // Every feature makes an engine and starts it; two log; one formats a date.
    expect(new Set(names(files).slice(0, 2))).toEqual(new Set(['makeEngine', 'start']));
    expect(names(files)[2]).toBe('logLine');
    expect(place(files, 'formatDate')).toBeGreaterThan(place(files, 'logLine'));
  });

  it('leans towards a name the latest message uses, and towards the files it names', async () => {
    const files = await project();
    expect(names(files, { mentionedNames: new Set(['formatDate']) })[0]).toBe('formatDate');
    // The report names formatDate and makeEngine: both climb above logLine, which the report does not use.
    const toReport = names(files, { mentionedFiles: new Set(['feature/report.ts']) });
    expect(toReport.indexOf('formatDate')).toBeLessThan(toReport.indexOf('logLine'));
  });

  it('leaves out what the conversation already holds, and ranks what those files use', async () => {
    const files = await project();
    const focus = { chatFiles: new Set(['feature/report.ts']) };
    const ranked = rankDefinitions(files, focus);
    expect(ranked.some((definition) => definition.path === 'feature/report.ts')).toBe(false);
    // The report is in the conversation: what it uses (formatDate) climbs above logLine, which only other features use
    // and which ranks above formatDate without a focus.
    expect(place(files, 'formatDate', focus)).toBeLessThan(place(files, 'logLine', focus));
    expect(place(files, 'formatDate')).toBeGreaterThan(place(files, 'logLine'));
  });

  it('renders the best-ranked definitions as their first lines, by file, never past its budget', async () => {
    const files = await project();
    const ranked = rankDefinitions(files);
    const tokens = (text: string): number => Math.ceil(text.length / 3);
    expect(renderMap(ranked, 30, tokens)).toBe('core/engine.ts:\n    2│ start(): void {}\n    4│ export function makeEngine(): Engine {');
    for (let budget = 0; budget <= 400; budget += 7) expect(tokens(renderMap(ranked, budget, tokens))).toBeLessThanOrEqual(budget);
    const whole = renderMap(ranked, 10_000, tokens);
    expect(whole.split('\n').filter((line) => line.endsWith(':'))).toHaveLength(Object.keys(sources).length);
    expect(renderMap(ranked, 5, tokens)).toBe('');
  });
});
