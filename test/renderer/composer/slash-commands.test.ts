import { describe, expect, it } from 'vitest';
import { goesToModel, promptOf } from '../../../src/renderer/src/composer/composer-commands';
import { initPrompt } from '../../../src/renderer/src/composer/init-prompt';
import { commandsFor, readComposerText } from '../../../src/renderer/src/composer/slash-commands';
import type { CustomCommand } from '../../../src/shared/custom-commands';

const review: CustomCommand = {
  name: 'review',
  description: 'Review a change',
  argumentHint: '<file> [focus]',
  prompt: 'Review $1, looking for $2.',
  source: 'workspace',
  path: '.agents/commands/review.md',
};
const standup: CustomCommand = {
  name: 'standup',
  description: 'Write my standup',
  argumentHint: '',
  prompt: 'Summarize what changed today.',
  source: 'data',
  path: '/data/commands/standup.md',
};

describe('reading the composer’s text', () => {
  it('reads each command and its argument', () => {
    expect(readComposerText('/compact keep the API notes')).toEqual({ kind: 'compact', instructions: 'keep the API notes' });
    expect(readComposerText('/compact')).toEqual({ kind: 'compact', instructions: '' });
    expect(readComposerText('  /clear ')).toEqual({ kind: 'clear' });
    expect(readComposerText('/export')).toEqual({ kind: 'export' });
    expect(readComposerText('/model qwen3:8b')).toEqual({ kind: 'model', model: 'qwen3:8b' });
    expect(readComposerText('/autonomy l2')).toEqual({ kind: 'autonomy', autonomy: 'L2' });
    expect(readComposerText('/MODEL qwen3')).toEqual({ kind: 'model', model: 'qwen3' });
  });

  it('sends paths and // as messages, as written', () => {
    expect(readComposerText('/etc/hosts is empty, why?')).toEqual({ kind: 'message', text: '/etc/hosts is empty, why?' });
    expect(readComposerText('//compact is a word I made up')).toEqual({ kind: 'message', text: '/compact is a word I made up' });
    expect(readComposerText('Fix the build')).toEqual({ kind: 'message', text: 'Fix the build' });
  });

  it('refuses what cannot run, saying why', () => {
    expect(readComposerText('/deploy now')).toEqual({
      kind: 'refused',
      reason:
        'There is no command /deploy. Commands: /compact, /clear, /model, /autonomy, /export, /help, /init. To send a message that starts with “/”, begin it with “//”.',
    });
    expect(readComposerText('/')).toMatchObject({ kind: 'refused' });
    expect(readComposerText('/autonomy L9')).toEqual({ kind: 'refused', reason: 'Say which level: /autonomy L0, L1, L2 or L3.' });
    expect(readComposerText('/model')).toEqual({ kind: 'refused', reason: 'Say which model: /model <name>.' });
    expect(readComposerText('/model two words')).toMatchObject({ kind: 'refused' });
    expect(readComposerText('/clear everything')).toEqual({ kind: 'refused', reason: '/clear takes nothing after it.' });
    expect(readComposerText(`/compact ${'x'.repeat(2_001)}`)).toMatchObject({ kind: 'refused' });
  });

  it('lists the commands that match while a name is typed, and none after a space', () => {
    expect(commandsFor('/').map((command) => command.name)).toEqual(['compact', 'clear', 'model', 'autonomy', 'export', 'help', 'init']);
    expect(commandsFor('/c').map((command) => command.name)).toEqual(['compact', 'clear']);
    expect(commandsFor('/model ')).toEqual([]);
    expect(commandsFor('/zzz')).toEqual([]);
    expect(commandsFor('hello /c')).toEqual([]);
  });

  it('reads /help and /init, with what /init should stress', () => {
    expect(readComposerText('/help')).toEqual({ kind: 'help' });
    expect(readComposerText('/help me')).toEqual({ kind: 'refused', reason: '/help takes nothing after it.' });
    expect(readComposerText('/init')).toEqual({ kind: 'init', instructions: '' });
    expect(readComposerText('/init mention the Docker setup')).toEqual({ kind: 'init', instructions: 'mention the Docker setup' });
  });

  it('reads a command of the person’s with what follows it, and names it among the commands when one is unknown', () => {
    expect(readComposerText('/review src/app.ts races', [review, standup])).toEqual({
      kind: 'custom',
      command: review,
      arguments: 'src/app.ts races',
    });
    expect(readComposerText('/Standup', [review, standup])).toEqual({ kind: 'custom', command: standup, arguments: '' });
    // A built-in name is the built-in command, whatever a list holds.
    expect(readComposerText('/help', [{ ...review, name: 'help' }])).toEqual({ kind: 'help' });
    expect(readComposerText('/review now')).toMatchObject({ kind: 'refused' });
    expect(readComposerText('/deploy', [review])).toMatchObject({
      kind: 'refused',
      reason: expect.stringContaining('Commands: /compact, /clear, /model, /autonomy, /export, /help, /init, /review.') as unknown,
    });
  });

  it('lists the person’s commands after the built-in ones, with their hint, description and where they come from', () => {
    expect(commandsFor('/', [standup, review]).slice(-2)).toEqual([
      { name: 'review', usage: '/review <file> [focus]', summary: 'Review a change', source: 'this workspace' },
      { name: 'standup', usage: '/standup', summary: 'Write my standup', source: 'every workspace' },
    ]);
    expect(commandsFor('/rev', [standup, review]).map((command) => command.name)).toEqual(['review']);
    expect(commandsFor('/review ', [review])).toEqual([]);
  });
});

describe('what a command sends to the model', () => {
  const list = { commands: [review], notes: [], instructionFiles: ['CLAUDE.md'] };

  it('sends a command’s prompt with its arguments put in, and /init’s request for an AGENTS.md', () => {
    const custom = readComposerText('/review src/app.ts races', [review]);
    const init = readComposerText('/init');
    if (!goesToModel(custom) || !goesToModel(init)) throw new Error('both go to the model');
    expect(promptOf(custom, list)).toEqual({ message: 'Review src/app.ts, looking for races.' });
    expect(promptOf(init, list)).toEqual({ message: initPrompt(['CLAUDE.md'], '') });
    expect(goesToModel(readComposerText('/help'))).toBe(false);
  });

  it('refuses /init in a session without a folder', () => {
    expect(promptOf({ kind: 'init', instructions: '' }, { ...list, instructionFiles: null })).toEqual({
      problem: '/init looks at the session’s folder, and this session has none: choose a folder first.',
    });
  });

  it('asks /init to draft AGENTS.md, or to improve the one there rather than replace it', () => {
    const draft = initPrompt([], 'stress the Docker setup');
    expect(draft).toContain('draft an AGENTS.md');
    expect(draft).not.toContain('already there');
    expect(draft).toMatch(/Also: stress the Docker setup$/);
    const improve = initPrompt(['AGENTS.md', 'CLAUDE.md', '.cursorrules'], '');
    expect(improve).toContain('improve its AGENTS.md');
    expect(improve).toContain('improve it rather than replace it');
    expect(improve).toContain('The folder also has CLAUDE.md, .cursorrules: read them');
  });
});
