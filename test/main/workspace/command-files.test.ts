import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadCustomCommands, parseCommandFile } from '../../../src/main/workspace/command-files';
import { commandFileLimitBytes } from '../../../src/shared/custom-commands';
import { temporaryFolder } from '../../helpers';
import { needs, symlinks } from '../../platform';

describe('a command file read as its parts', () => {
  it('takes the description and the argument hint from the front matter, and the rest as the prompt', () => {
    const text = [
      '---',
      'description: Review a file',
      'argument-hint: "<file> [focus]"',
      'allowed-tools: Bash(git diff:*)',
      '---',
      '',
      'Review $1 for $2.',
      '',
    ].join('\n');
    expect(parseCommandFile(text)).toEqual({
      ok: true,
      description: 'Review a file',
      argumentHint: '<file> [focus]',
      prompt: 'Review $1 for $2.',
    });
  });

  it('uses the prompt’s first line as the description when the file has no front matter', () => {
    expect(parseCommandFile('# Explain the build\r\n\r\nExplain how $ARGUMENTS is built.\r\n')).toEqual({
      ok: true,
      description: 'Explain the build',
      argumentHint: '',
      prompt: '# Explain the build\n\nExplain how $ARGUMENTS is built.',
    });
  });

  it('leaves keys it does not use, list items and single-quoted values as YAML has them', () => {
    const text = "---\nallowed-tools:\n  - Bash\n  - Read\ndescription: 'It''s quick'\n---\nGo.";
    expect(parseCommandFile(text)).toMatchObject({ ok: true, description: "It's quick", prompt: 'Go.' });
  });

  it('refuses a front matter never closed and a file with no prompt, saying why', () => {
    expect(parseCommandFile('---\ndescription: x\nReview it.')).toEqual({
      ok: false,
      reason: 'its front matter (from the first “---” line) has no closing “---” line',
    });
    expect(parseCommandFile('---\ndescription: Empty\n---\n\n  \n')).toEqual({ ok: false, reason: 'it has no prompt' });
    expect(parseCommandFile('')).toEqual({ ok: false, reason: 'it has no prompt' });
  });
});

describe('the commands of a session', () => {
  let folder: ReturnType<typeof temporaryFolder>;
  let workspace: string;
  let dataDir: string;
  const write = (path: string, text: string | Buffer): void => {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, text);
  };

  beforeEach(() => {
    folder = temporaryFolder();
    workspace = join(folder.path, 'project');
    dataDir = join(folder.path, 'data');
    mkdirSync(workspace);
    mkdirSync(dataDir);
  });
  afterEach(() => folder.remove());

  it('reads .agents/commands, .claude/commands and the data folder’s commands, a workspace’s winning a name', async () => {
    write(join(workspace, '.agents/commands/review.md'), '---\ndescription: Review a change\n---\nReview $ARGUMENTS.');
    write(join(workspace, '.claude/commands/review.md'), 'A Claude review that the .agents one hides.');
    write(join(workspace, '.claude/commands/fix-issue.md'), 'Fix issue $1.');
    write(join(dataDir, 'commands/review.md'), 'A review for every workspace, hidden here.');
    write(join(dataDir, 'commands/standup.md'), '---\ndescription: Write my standup\n---\nSummarize what changed today.');
    write(join(workspace, '.agents/commands/notes.txt'), 'Not a command: not Markdown.');
    write(join(workspace, 'AGENTS.md'), '# Rules');
    const list = await loadCustomCommands({ workspacePath: workspace, dataDir });
    expect(list.commands.map((command) => [command.name, command.source, command.path, command.description])).toEqual([
      ['review', 'workspace', '.agents/commands/review.md', 'Review a change'],
      ['fix-issue', 'workspace', '.claude/commands/fix-issue.md', 'Fix issue $1.'],
      ['standup', 'data', join(dataDir, 'commands/standup.md'), 'Write my standup'],
    ]);
    expect(list.notes).toEqual([]);
    expect(list.instructionFiles).toEqual(['AGENTS.md']);
  });

  it('reads the data folder’s commands alone for a session with no workspace', async () => {
    write(join(dataDir, 'commands/Standup.md'), 'Summarize today.');
    expect(await loadCustomCommands({ workspacePath: null, dataDir })).toEqual({
      commands: [
        {
          name: 'standup',
          description: 'Summarize today.',
          argumentHint: '',
          prompt: 'Summarize today.',
          source: 'data',
          path: join(dataDir, 'commands/Standup.md'),
        },
      ],
      notes: [],
      instructionFiles: null,
    });
  });

  it('leaves out a built-in name, a bad name, a large, binary or promptless file, each with a note', async () => {
    const commands = join(workspace, '.agents/commands');
    write(join(commands, 'help.md'), 'My own help.');
    write(join(commands, 'two words.md'), 'Bad name.');
    write(join(commands, 'big.md'), 'x'.repeat(commandFileLimitBytes + 1));
    write(join(commands, 'binary.md'), Buffer.from([0x52, 0x00, 0x01]));
    write(join(commands, 'latin1.md'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    write(join(commands, 'empty.md'), '---\ndescription: Nothing\n---\n');
    write(join(commands, 'ok.md'), 'Fine.');
    mkdirSync(join(commands, 'frontend'));
    const list = await loadCustomCommands({ workspacePath: workspace, dataDir });
    expect(list.commands.map((command) => command.name)).toEqual(['ok']);
    expect(list.notes).toEqual([
      '.agents/commands/big.md was left out: a command file may be at most 32 KB.',
      '.agents/commands/binary.md was left out: it is not text (binary, or not UTF-8).',
      '.agents/commands/empty.md was left out: it has no prompt.',
      '.agents/commands/help.md was left out: /help is a built-in command, which a file cannot replace.',
      '.agents/commands/latin1.md was left out: it is not text (binary, or not UTF-8).',
      '.agents/commands/two words.md was left out: a command’s name is a letter followed by letters, digits, “-” or “_”.',
    ]);
  });

  it('reads commands in subfolders by their file names, its own first, the first of a name winning, two folders deep', async () => {
    const commands = join(workspace, '.claude/commands');
    write(join(commands, 'review.md'), 'Review the change.');
    write(join(commands, 'frontend/component.md'), '---\ndescription: Make a component\n---\nMake a React component.');
    write(join(commands, 'frontend/forms/validate.md'), 'Add validation.');
    write(join(commands, 'frontend/forms/deeper/too-deep.md'), 'Not read.');
    write(join(commands, 'backend/review.md'), 'Another review.');
    write(join(commands, 'backend/notes.txt'), 'Not a command.');
    const list = await loadCustomCommands({ workspacePath: workspace, dataDir });
    expect(list.commands.map((command) => [command.name, command.path, command.description])).toEqual([
      ['review', '.claude/commands/review.md', 'Review the change.'],
      ['component', '.claude/commands/frontend/component.md', 'Make a component'],
      ['validate', '.claude/commands/frontend/forms/validate.md', 'Add validation.'],
    ]);
    expect(list.notes).toEqual([
      'Commands more than 2 folders deep in .claude/commands are not read (frontend/forms/deeper/).',
      '.claude/commands/backend/review.md was left out: /review is .claude/commands/review.md already.',
    ]);
  });

  it('never reads a command through a link, nor a commands folder that is a link out of the workspace', needs(symlinks), async () => {
    const outside = join(folder.path, 'outside');
    write(join(outside, 'secret.md'), 'Outside the workspace.');
    write(join(outside, 'commands/steal.md'), 'Outside too.');
    mkdirSync(join(workspace, '.agents/commands'), { recursive: true });
    symlinkSync(join(outside, 'secret.md'), join(workspace, '.agents/commands/secret.md'));
    mkdirSync(join(workspace, '.claude'));
    symlinkSync(join(outside, 'commands'), join(workspace, '.claude/commands'));
    const list = await loadCustomCommands({ workspacePath: workspace, dataDir });
    expect(list.commands).toEqual([]);
    expect(list.notes).toEqual([
      '.agents/commands/secret.md was left out: it is not a plain file (links are not followed).',
      '.claude/commands is not a plain folder (links are not followed), so its commands are left out.',
    ]);
  });

  it('says so when the workspace folder is gone, and still reads the data folder', async () => {
    write(join(dataDir, 'commands/standup.md'), 'Summarize today.');
    const list = await loadCustomCommands({ workspacePath: join(folder.path, 'gone'), dataDir });
    expect(list.commands.map((command) => command.name)).toEqual(['standup']);
    expect(list.notes).toEqual(['The workspace folder could not be opened: its commands are left out.']);
    expect(list.instructionFiles).toBeNull();
  });
});
