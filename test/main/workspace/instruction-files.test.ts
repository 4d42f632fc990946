import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InstructionFiles, maxInstructionBytes, withheldInstructions } from '../../../src/main/workspace/instruction-files';
import { temporaryFolder } from '../../helpers';
import { needs, posixFiles, symlinks } from '../../platform';

describe("a workspace's instruction files", () => {
  let folder: ReturnType<typeof temporaryFolder>;
  let now: number;
  let files: InstructionFiles;
  const write = (path: string, text: string | Buffer): void => {
    const absolute = join(folder.path, path);
    mkdirSync(join(absolute, '..'), { recursive: true });
    writeFileSync(absolute, text);
  };

  beforeEach(() => {
    folder = temporaryFolder();
    now = 0;
    files = new InstructionFiles(() => now);
  });
  afterEach(() => folder.remove());

  it("reads the workspace's own, the common equivalents of other tools, then those of its subfolders, nearest first", async () => {
    write('project/CLAUDE.md', 'Claude rules.');
    write('project/AGENTS.md', 'Agent rules.');
    write('project/.github/copilot-instructions.md', 'Copilot rules.');
    write('project/.cursor/rules/style.mdc', 'Cursor style.');
    write('project/src/AGENTS.md', 'Source rules.');
    write('project/src/api/CLAUDE.md', 'API rules.');
    write('project/node_modules/pkg/AGENTS.md', 'Not ours.');
    write('project/.hidden/AGENTS.md', 'Hidden.');
    const set = await files.load(join(folder.path, 'project'));
    expect(set.files.map((file) => [file.path, file.text, file.scope ?? null])).toEqual([
      ['AGENTS.md', 'Agent rules.', null],
      ['CLAUDE.md', 'Claude rules.', null],
      ['.github/copilot-instructions.md', 'Copilot rules.', null],
      ['.cursor/rules/style.mdc', 'Cursor style.', null],
      ['src/AGENTS.md', 'Source rules.', 'for files under src/'],
      ['src/api/CLAUDE.md', 'API rules.', 'for files under src/api/'],
    ]);
    expect(set.notes).toEqual([]);
  });

  it('reads the folders above the workspace up to the root of its repository, and none above that', async () => {
    write('AGENTS.md', 'Above the repository: never read.');
    mkdirSync(join(folder.path, 'repo/.git'), { recursive: true });
    write('repo/AGENTS.md', 'Repository rules.');
    write('repo/packages/AGENTS.md', 'Packages rules.');
    write('repo/packages/app/AGENTS.md', 'App rules.');
    const set = await files.load(join(folder.path, 'repo/packages/app'));
    expect(set.files.map((file) => [file.path, file.text])).toEqual([
      ['AGENTS.md', 'App rules.'],
      ['../AGENTS.md', 'Packages rules.'],
      ['../../AGENTS.md', 'Repository rules.'],
    ]);
    // A workspace in no repository has no folders above it that belong to it.
    write('loose/AGENTS.md', 'Loose rules.');
    expect((await files.load(join(folder.path, 'loose'))).files.map((file) => file.path)).toEqual(['AGENTS.md']);
  });

  it(
    'says why a file is not used: binary, not UTF-8, a link, unreadable; and uses only the start of a huge one',
    needs(symlinks, posixFiles),
    async () => {
      write('w/AGENTS.md', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
      write('w/CLAUDE.md', Buffer.from([0x66, 0xff, 0xfe, 0x67]));
      write('outside.md', 'Outside the workspace.');
      symlinkSync(join(folder.path, 'outside.md'), join(folder.path, 'w/GEMINI.md'));
      write('w/CONVENTIONS.md', 'Secret conventions.');
      chmodSync(join(folder.path, 'w/CONVENTIONS.md'), 0o000);
      // Two bytes a character, and one more at the start: the read ends in the middle of a character.
      write('w/.cursorrules', `x${'é'.repeat(maxInstructionBytes)}tail`);
      const set = await files.load(join(folder.path, 'w'));
      const root = process.getuid?.() === 0;
      expect(set.notes).toContain('AGENTS.md was not used: it is not text (binary, or not UTF-8).');
      expect(set.notes).toContain('CLAUDE.md was not used: it is not text (binary, or not UTF-8).');
      expect(set.notes).toContain('GEMINI.md is a link: instruction files are not read through links.');
      if (!root) expect(set.notes.some((note) => note.startsWith('CONVENTIONS.md was not used'))).toBe(true);
      expect(set.notes).toContain('.cursorrules is 128 KB: only its first 64 KB were read.');
      const huge = set.files.find((file) => file.path === '.cursorrules');
      expect(huge?.text.length).toBe(maxInstructionBytes / 2);
      expect(huge?.text.endsWith('é')).toBe(true);
      expect(set.files.map((file) => file.path)).toEqual(root ? ['CONVENTIONS.md', '.cursorrules'] : ['.cursorrules']);
      chmodSync(join(folder.path, 'w/CONVENTIONS.md'), 0o644);
    },
  );

  it('reads a file again only when it changed, and finds new files once its list is old', async () => {
    write('c/AGENTS.md', 'First.');
    const workspace = join(folder.path, 'c');
    expect((await files.load(workspace)).files[0]?.text).toBe('First.');
    write('c/AGENTS.md', 'Second, and longer.');
    expect((await files.load(workspace)).files[0]?.text).toBe('Second, and longer.');
    write('c/CLAUDE.md', 'New.');
    expect((await files.load(workspace)).files.map((file) => file.path)).toEqual(['AGENTS.md']);
    now += 10_001;
    // The old list serves while a new search runs behind it; the next prompt has what it found.
    expect((await files.load(workspace)).files.map((file) => file.path)).toEqual(['AGENTS.md']);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await files.load(workspace)).files.map((file) => file.path)).toEqual(['AGENTS.md', 'CLAUDE.md']);
  });

  it('never reads a file above the workspace through a link, nor through a linked folder', needs(symlinks), async () => {
    mkdirSync(join(folder.path, 'repo/.git'), { recursive: true });
    write('secret/notes.md', 'Private notes.');
    write('secret/.github/copilot-instructions.md', 'Private rules.');
    symlinkSync(join(folder.path, 'secret/notes.md'), join(folder.path, 'repo/AGENTS.md'));
    symlinkSync(join(folder.path, 'secret/.github'), join(folder.path, 'repo/.github'));
    write('repo/app/AGENTS.md', 'App rules.');
    const set = await files.load(join(folder.path, 'repo/app'));
    expect(set.files.map((file) => file.text)).toEqual(['App rules.']);
    expect(set.notes).toContain('../AGENTS.md is a link: instruction files are not read through links.');
  });

  it('are named and held back, none given, for a folder not trusted', async () => {
    for (const name of ['AGENTS.md', 'CLAUDE.md', '.cursorrules', 'GEMINI.md', 'CONVENTIONS.md']) write(name, `Rules of ${name}.`);
    const held = withheldInstructions(await files.load(folder.path));
    expect(held.files).toEqual([]);
    expect(held.notes).toEqual([
      "The project's instruction files (AGENTS.md, CLAUDE.md, GEMINI.md, CONVENTIONS.md and 1 more) were not given to the model: this folder is not trusted (restricted mode). Trust it to use them.",
    ]);
    expect(withheldInstructions({ files: [], notes: [] })).toEqual({ files: [], notes: [] });
  });

  it('finds nothing, and says nothing, for a folder that is gone', async () => {
    expect(await files.load(join(folder.path, 'missing'))).toEqual({ files: [], notes: [] });
  });
});
