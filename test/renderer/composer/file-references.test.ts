import { describe, expect, it } from 'vitest';
import { completeReference, insertReference, readReferences, referenceAt } from '../../../src/renderer/src/composer/file-references';

describe('file references in the composer', () => {
  it('reads a path after @', () => {
    expect(readReferences('Explain @src/app.ts please').references).toEqual([{ path: 'src/app.ts', written: '@src/app.ts' }]);
  });

  it('reads a line range written as #L10-20', () => {
    expect(readReferences('See @src/app.ts#L10-20').references[0]).toMatchObject({ path: 'src/app.ts', range: { start: 10, end: 20 } });
  });

  it('reads a single line written as #L7', () => {
    expect(readReferences('@a.md#L7').references[0]?.range).toEqual({ start: 7, end: 7 });
  });

  it('leaves out the punctuation that ends a sentence', () => {
    expect(readReferences('What does @a.md say?').references[0]?.path).toBe('a.md');
  });

  it('does not take an e-mail address for a reference', () => {
    expect(readReferences('Write to me@example.com').references).toEqual([]);
  });

  it('leaves a mention or a decorator as text: an unquoted @word with no . or / is not a file', () => {
    expect(readReferences('Ask @alice to rename @property to @cached_property').references).toEqual([]);
    expect(readReferences('Bump @types/node').references.map((reference) => reference.path)).toEqual(['types/node']);
  });

  it('reads a quoted path with spaces, and its line range', () => {
    expect(readReferences('Read @"My Notes.md" and @"docs/Read me.txt"#L2-3, then stop').references).toEqual([
      { path: 'My Notes.md', written: '@"My Notes.md"' },
      { path: 'docs/Read me.txt', range: { start: 2, end: 3 }, written: '@"docs/Read me.txt"#L2-3' },
    ]);
  });

  it('quotes a completed or dragged path that has a space or neither . nor /', () => {
    expect(completeReference('@my', { start: 0, end: 3, query: 'my' }, 'My Notes.md', false).text).toBe('@"My Notes.md" ');
    expect(insertReference('', 0, 'Makefile').text).toBe('@"Makefile" ');
    expect(readReferences(insertReference('See', 3, 'Makefile').text).references[0]?.path).toBe('Makefile');
  });

  it('refuses a path that climbs out of the workspace', () => {
    expect(readReferences('Read @../secret.txt').problem).toBe(
      '@../secret.txt leaves the workspace: only files inside it can be attached.',
    );
  });

  it('refuses an absolute path', () => {
    expect(readReferences('Read @/etc/passwd').problem).toContain('is not in the workspace');
  });

  it('refuses a line range that ends before it starts', () => {
    expect(readReferences('@a.ts#L20-10').problem).toBe('@a.ts#L20-10: the line range ends before it starts.');
  });

  it('refuses a line range that cannot be read', () => {
    expect(readReferences('@a.ts#Lten').problem).toContain('write it as #L10 or #L10-20');
  });

  it('finds the reference being typed at the caret', () => {
    expect(referenceAt('look at @sr', 11)).toEqual({ start: 8, end: 11, query: 'sr' });
  });

  it('finds no reference when the caret is past a space', () => {
    expect(referenceAt('look at @src ', 13)).toBeNull();
  });

  it('completes a file with a space after it', () => {
    expect(completeReference('look at @sr', { start: 8, end: 11, query: 'sr' }, 'src/app.ts', false)).toEqual({
      text: 'look at @src/app.ts ',
      caret: 20,
    });
  });

  it('completes a folder with a slash, so its files can be listed next', () => {
    expect(completeReference('@sr', { start: 0, end: 3, query: 'sr' }, 'src', true)).toEqual({ text: '@src/', caret: 5 });
  });

  it('inserts a dragged path with a space before it when the text needs one', () => {
    expect(insertReference('Explain', 7, 'a.ts')).toEqual({ text: 'Explain @a.ts ', caret: 14 });
  });
});
