import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { JournalEntry, RuntimeEvent } from '../../../../src/shared/events';
import type { Session } from '../../../../src/shared/domain';
import { textTurn } from '../../../scripted-model-server';
import { toolCall } from '../harness';
import { answer, useScriptedCore, type ScriptedCore } from '../../scripted-core';

/** A small project: shapes and their users, an unrelated billing module, and a vendored folder git ignores. */
const project: Record<string, string> = {
  '.gitignore': 'vendor/\n',
  'src/shapes.ts': [
    'export interface Shape {',
    '  area(): number;',
    '}',
    'export class Square implements Shape {',
    '  constructor(private readonly side: number) {}',
    '  area(): number {',
    '    return this.side * this.side;',
    '  }',
    '}',
    'export function totalArea(shapes: Shape[]): number {',
    '  return shapes.reduce((sum, shape) => sum + shape.area(), 0);',
    '}',
    '',
  ].join('\n'),
  'src/draw.ts': [
    "import { Square, totalArea } from './shapes';",
    'export function drawAll(): number {',
    '  return totalArea([new Square(2)]);',
    '}',
    '',
  ].join('\n'),
  'src/billing/invoice.ts': [
    'export class Invoice {',
    '  constructor(readonly lines: InvoiceLine[]) {}',
    '  total(): number {',
    '    return this.lines.reduce((sum, line) => sum + priceOf(line), 0);',
    '  }',
    '}',
    'export interface InvoiceLine {',
    '  readonly cents: number;',
    '}',
    'export function priceOf(line: InvoiceLine): number {',
    '  return line.cents;',
    '}',
    '',
  ].join('\n'),
  'src/billing/report.ts': [
    "import { Invoice } from './invoice';",
    'export function monthly(invoices: Invoice[]): number {',
    '  return invoices.reduce((sum, invoice) => sum + invoice.total(), 0);',
    '}',
    '',
  ].join('\n'),
  'vendor/huge.ts': 'export function vendoredHelper(): void {}\n',
};

/** The block the model read after the person's message in a request, or '' when there was none. */
const noteOf = (scripted: ScriptedCore, index: number): string => {
  const messages = scripted.server.requests[index]?.body['messages'] as Array<{ role: string; content: string }> | undefined;
  return messages?.findLast((message) => message.role === 'user')?.content ?? '';
};

/** The map's part of a note: the files it names, in order. */
const filesOf = (note: string): string[] => {
  const map = /<code-map>\n[^\n]*\n([\s\S]*?)\n<\/code-map>/.exec(note)?.[1] ?? '';
  return map
    .split('\n')
    .filter((line) => line.endsWith(':') && !line.startsWith(' '))
    .map((line) => line.slice(0, -1));
};

describe('the repository map given with the person’s message', () => {
  let scripted: ScriptedCore;
  useScriptedCore(
    {
      builtinTools: true,
      prepare: (folder) => {
        for (const [path, text] of Object.entries(project)) {
          mkdirSync(join(folder, 'project', path, '..'), { recursive: true });
          writeFileSync(join(folder, 'project', path), text);
        }
      },
    },
    (started) => (scripted = started),
  );

  const newSession = async (): Promise<string> => {
    const session = await answer<Session>(scripted.transport, 'session:create', { workspacePath: join(scripted.folder.path, 'project') });
    await answer(scripted.transport, 'session:setAutonomy', { sessionId: session.id, autonomy: 'L2' });
    return session.id;
  };
  const send = async (sessionId: string, text: string): Promise<void> => {
    await answer(scripted.transport, 'run:send', { sessionId, text });
    await scripted.core.runtime?.whenIdle(sessionId);
  };
  const recalled = async (sessionId: string): Promise<Array<Extract<RuntimeEvent, { type: 'memories_recalled' }>>> =>
    (await answer<{ entries: JournalEntry[] }>(scripted.transport, 'session:open', { sessionId })).entries
      .map((entry) => entry.event)
      .filter((event): event is Extract<RuntimeEvent, { type: 'memories_recalled' }> => event.type === 'memories_recalled');

  // A message waits at most 1.5 s for a folder's first index, then goes without the map; on a loaded machine the first
  // index can take longer. So the folder is indexed whole first, and each test sees what a message gets from it.
  beforeAll(async () => {
    const sessionId = await newSession();
    for (let attempt = 0; attempt < 20; attempt += 1) {
      scripted.server.reset();
      scripted.server.enqueue(textTurn('Indexed.'));
      await send(sessionId, 'Which files are there?');
      if (noteOf(scripted, 0).includes('<code-map>')) return;
    }
    throw new Error('The folder was never indexed whole.');
  });

  it('gives the definitions the message is about first, within its share of the window, and says so in the journal', async () => {
    const sessionId = await newSession();
    scripted.server.reset();
    scripted.server.enqueue(textTurn('It multiplies the side by itself.'));
    await send(sessionId, 'How does Invoice compute its total?');
    const note = noteOf(scripted, 0);
    expect(note).toContain('<code-map>');
    // The billing module comes first; the ignored vendor folder is never in it.
    expect(filesOf(note)[0]).toBe('src/billing/invoice.ts');
    expect(note).toMatch(/src\/billing\/invoice\.ts:\n\s+1│ export class Invoice \{/);
    expect(note).not.toContain('vendor/');
    const [event] = await recalled(sessionId);
    const given = event?.codeMap;
    expect(given?.files).toBe(filesOf(note).length);
    expect(given?.indexed).toBe(4);
    // The scripted server says nothing of its window: 8,192 tokens are assumed, and the map takes 6% of it at most.
    expect(given?.tokens).toBeGreaterThan(0);
    expect(given?.tokens).toBeLessThanOrEqual(Math.floor(8192 * 0.06));
    expect(note).toContain(given?.text ?? 'no map');
  });

  it('leans towards what a file the message names uses, and leaves out the files the conversation has read', async () => {
    const sessionId = await newSession();
    scripted.server.reset();
    scripted.server.enqueue(textTurn('Noted.'), textTurn('Noted.'));
    await send(sessionId, 'Look at src/draw.ts please.');
    expect(filesOf(noteOf(scripted, 0))[0]).toBe('src/shapes.ts');
    await send(sessionId, 'Now look at billing/report.ts please.');
    expect(filesOf(noteOf(scripted, 1))[0]).toBe('src/billing/invoice.ts');

    scripted.server.reset();
    scripted.server.enqueue({ steps: [toolCall('read_file', { path: 'src/shapes.ts' })] }, textTurn('Read it.'));
    await send(sessionId, 'Read the shapes file.');
    scripted.server.reset();
    scripted.server.enqueue(textTurn('Square.'));
    await send(sessionId, 'Which shape has an area method?');
    const files = filesOf(noteOf(scripted, 0));
    expect(files.length).toBeGreaterThan(0);
    expect(files).not.toContain('src/shapes.ts');
  });

  it('is not given again when it is the one the conversation already has', async () => {
    const sessionId = await newSession();
    scripted.server.reset();
    scripted.server.enqueue(textTurn('One.'), textTurn('Two.'));
    await send(sessionId, 'What does monthly() add up?');
    await send(sessionId, 'What does monthly() add up?');
    expect(noteOf(scripted, 0)).toContain('<code-map>');
    expect(noteOf(scripted, 1)).not.toContain('<code-map>');
    expect((await recalled(sessionId)).filter((event) => event.codeMap).length).toBe(1);
  });

  it('is not given when the setting is none, and is read again after a file changes', async () => {
    await answer(scripted.transport, 'settings:update', { codeMapShare: 0 });
    const sessionId = await newSession();
    scripted.server.reset();
    scripted.server.enqueue(textTurn('No map.'));
    await send(sessionId, 'How does Invoice compute its total?');
    expect(noteOf(scripted, 0)).not.toContain('<code-map>');
    await answer(scripted.transport, 'settings:update', { codeMapShare: 0.06 });

    writeFileSync(
      join(scripted.folder.path, 'project/src/billing/tax.ts'),
      'export function vatOf(cents: number): number {\n  return Math.round(cents * 0.2);\n}\n',
    );
    scripted.server.reset();
    scripted.server.enqueue(textTurn('Twenty percent.'));
    await send(sessionId, 'How is vatOf rounded?');
    const note = noteOf(scripted, 0);
    expect(filesOf(note)[0]).toBe('src/billing/tax.ts');
    expect(note).toContain('1│ export function vatOf(cents: number): number {');
  });
});

describe('the code map kept beside an encrypted database', () => {
  let scripted: ScriptedCore;
  useScriptedCore(
    {
      builtinTools: true,
      encrypted: true,
      prepare: (folder) => {
        // A cache kept plain before the database was encrypted: gone once the app starts with a seal.
        mkdirSync(join(folder, 'code-map'), { recursive: true });
        writeFileSync(join(folder, 'code-map', 'plain-from-before.json'), '{"version":1,"root":"/work/secret-project","files":{}}');
        for (const [path, text] of Object.entries(project)) {
          mkdirSync(join(folder, 'project', path, '..'), { recursive: true });
          writeFileSync(join(folder, 'project', path), text);
        }
      },
    },
    (started) => (scripted = started),
  );

  it('is sealed on disk: the cached index names no file and no definition of the project', async () => {
    expect(scripted.core.info.databaseEncryption.encrypted).toBe(true);
    const session = await answer<Session>(scripted.transport, 'session:create', { workspacePath: join(scripted.folder.path, 'project') });
    scripted.server.enqueue(textTurn('It adds the lines up.'));
    await answer(scripted.transport, 'run:send', { sessionId: session.id, text: 'How does Invoice compute its total?' });
    await scripted.core.runtime?.whenIdle(session.id);
    // The map was made from the index, so the index is there to be kept.
    expect(noteOf(scripted, 0)).toContain('export class Invoice');
    const folder = join(scripted.folder.path, 'code-map');
    const names = readdirSync(folder);
    const cached = names.map((name) => readFileSync(join(folder, name)));
    expect(cached).toHaveLength(1);
    // Its name does not tell the project's path to whoever hashes likely paths.
    const root = realpathSync(join(scripted.folder.path, 'project'));
    expect(names[0]).not.toBe(`${createHash('sha256').update(root).digest('hex').slice(0, 24)}.json`);
    const [index] = cached;
    expect(index?.subarray(0, 8).toString('latin1')).toBe('AWSEAL01');
    for (const word of ['Invoice', 'priceOf', 'src/billing', 'shapes.ts']) expect(index?.includes(word)).toBe(false);
  });
});
