import { describe, expect, it } from 'vitest';
import { commandsFor, readComposerText } from '../../../src/renderer/src/composer/slash-commands';

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
        'There is no command /deploy. Commands: /compact, /clear, /model, /autonomy, /export. To send a message that starts with “/”, begin it with “//”.',
    });
    expect(readComposerText('/')).toMatchObject({ kind: 'refused' });
    expect(readComposerText('/autonomy L9')).toEqual({ kind: 'refused', reason: 'Say which level: /autonomy L0, L1, L2 or L3.' });
    expect(readComposerText('/model')).toEqual({ kind: 'refused', reason: 'Say which model: /model <name>.' });
    expect(readComposerText('/model two words')).toMatchObject({ kind: 'refused' });
    expect(readComposerText('/clear everything')).toEqual({ kind: 'refused', reason: '/clear takes nothing after it.' });
    expect(readComposerText(`/compact ${'x'.repeat(2_001)}`)).toMatchObject({ kind: 'refused' });
  });

  it('lists the commands that match while a name is typed, and none after a space', () => {
    expect(commandsFor('/').map((command) => command.name)).toEqual(['compact', 'clear', 'model', 'autonomy', 'export']);
    expect(commandsFor('/c').map((command) => command.name)).toEqual(['compact', 'clear']);
    expect(commandsFor('/model ')).toEqual([]);
    expect(commandsFor('/zzz')).toEqual([]);
    expect(commandsFor('hello /c')).toEqual([]);
  });
});
