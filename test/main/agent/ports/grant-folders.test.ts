import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, foldersHolding, workspaceRelative } from '../../../../src/main/agent/ports/tools';
import { grantPatternSchema } from '../../../../src/shared/domain';

const write = defineTool({
  name: 'write_file',
  description: 'Writes a file.',
  input: z.object({ path: z.string(), content: z.string() }).strict(),
  risk: 'write_low',
  pathOf: (input) => input.path,
  execute: async () => ({ output: 'written' }),
});
/** No workspace: the declaration above reads the path as given. */
const none = { workspacePath: null };
const plain = defineTool({
  name: 'note',
  description: 'Takes a note.',
  input: z.object({ text: z.string() }).strict(),
  risk: 'write_low',
  execute: async () => ({ output: 'noted' }),
});

describe('grants that cover a folder', () => {
  it('works a path out to where it is in the workspace, and refuses one that leaves it or is absolute', () => {
    expect(workspaceRelative('src/a.ts')).toBe('src/a.ts');
    expect(workspaceRelative('./src//ui/../a.ts')).toBe('src/a.ts');
    expect(workspaceRelative('../outside.ts')).toBeNull();
    expect(workspaceRelative('src/../../outside.ts')).toBeNull();
    expect(workspaceRelative('/etc/passwd')).toBeNull();
    expect(workspaceRelative('C:/Windows/x')).toBeNull();
    expect(workspaceRelative('.')).toBeNull();
    expect(foldersHolding('src/ui/button.ts')).toEqual(['src/ui/', 'src/', '']);
    expect(foldersHolding('README.md')).toEqual(['']);
  });

  it('covers the tool on any path inside its folder, not a sibling with the same start, nor a path that climbs out', () => {
    const src = { kind: 'path_prefix' as const, folder: 'src/' };
    expect(write.covers(src, { path: 'src/deep/a.ts', content: '' }, none)).toBe(true);
    expect(write.covers(src, { path: './src/a.ts', content: '' }, none)).toBe(true);
    expect(write.covers(src, { path: 'srcx/a.ts', content: '' }, none)).toBe(false);
    expect(write.covers(src, { path: 'src/../secrets.env', content: '' }, none)).toBe(false);
    expect(write.covers(src, { path: '/src/a.ts', content: '' }, none)).toBe(false);
    expect(write.covers({ kind: 'path_prefix', folder: '' }, { path: 'any/where.ts', content: '' }, none)).toBe(true);
    // A tool that acts on no one path is never covered by a folder, and offers none.
    expect(plain.covers(src, { text: 'src/a.ts' }, none)).toBe(false);
    expect(plain.grantFolders({ text: 'x' }, none)).toEqual([]);
    expect(write.grantFolders({ path: '../up.ts', content: '' }, none)).toEqual([]);
  });

  it('refuses a folder pattern that is absolute, climbs, or does not end with a slash', () => {
    for (const folder of ['/etc/', '../', 'src', 'a/../b/'])
      expect(grantPatternSchema.safeParse({ kind: 'path_prefix', folder }).success, folder).toBe(false);
    expect(grantPatternSchema.safeParse({ kind: 'path_prefix', folder: 'src/ui/' }).success).toBe(true);
  });
});
