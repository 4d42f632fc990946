import { describe, expect, it } from 'vitest';
import { commandWords, expandCommandPrompt, sourceLabel } from '../../src/shared/custom-commands';

describe('a command’s prompt with what followed the command', () => {
  it('puts all of it for $ARGUMENTS, and its words for $1, $2…', () => {
    expect(expandCommandPrompt('Review $ARGUMENTS carefully.', ' src/app.ts for races ')).toBe('Review src/app.ts for races carefully.');
    expect(expandCommandPrompt('Fix issue #$1 with priority $2 ($ARGUMENTS).', '123 high')).toBe(
      'Fix issue #123 with priority high (123 high).',
    );
  });

  it('keeps a quoted part as one word, and an absent word as nothing', () => {
    expect(commandWords(`alice "the login page" 'a b'`)).toEqual(['alice', 'the login page', 'a b']);
    expect(expandCommandPrompt('Ask $1 about $2.$3', 'alice "the login page"')).toBe('Ask alice about the login page.');
  });

  it('replaces in one pass, so an argument holding $1 stays as typed', () => {
    expect(expandCommandPrompt('Echo $ARGUMENTS and $1', '$1 $ARGUMENTS')).toBe('Echo $1 $ARGUMENTS and $1');
  });

  it('adds what was typed after a prompt without placeholders, and nothing when nothing was typed', () => {
    expect(expandCommandPrompt('Write the release notes.', 'for 2.1')).toBe('Write the release notes.\n\nArguments: for 2.1');
    expect(expandCommandPrompt('Write the release notes.', '  ')).toBe('Write the release notes.');
    expect(expandCommandPrompt('Review $ARGUMENTS.', '')).toBe('Review .');
  });

  it('says where a command comes from', () => {
    expect(sourceLabel({ source: 'workspace', path: '.agents/commands/review.md' })).toBe('this workspace');
    expect(sourceLabel({ source: 'workspace', path: '.claude/commands/review.md' })).toBe('this workspace (.claude)');
    expect(sourceLabel({ source: 'data', path: '/home/me/.config/app/commands/review.md' })).toBe('every workspace');
  });
});
