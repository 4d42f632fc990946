import { describe, expect, it } from 'vitest';
import { commandCovered, commandPattern, isSimpleCommand, shellWords } from '../../../src/main/agent/shell-words';

describe('shellWords', () => {
  it.each([
    ['git show HEAD', ['git', 'show', 'HEAD'], []],
    ["echo 'a b' \"c d\"", ['echo', 'a b', 'c d'], []],
    ['echo a\\ b', ['echo', 'a b'], []],
    ['ls > out.txt', ['ls', 'out.txt'], ['redirect']],
    ['ls 2>&1', ['ls', '2', '1'], ['redirect']],
    ['a && b', ['a', 'b'], ['chain']],
    ['a || b', ['a', 'b'], ['chain']],
    ['a; b', ['a', 'b'], ['chain']],
    ['a | b', ['a', 'b'], ['pipe']],
    ['sleep 1 &', ['sleep', '1'], ['background']],
    ['echo $(id)', ['echo', '$', 'id'], ['substitution', 'subshell']],
    ['echo `id`', ['echo', '`id`'], ['substitution']],
    ['echo "$(id)"', ['echo', '$(id)'], ['substitution']],
    ['echo $HOME', ['echo', '$HOME'], ['variable']],
    ['cat ~/.ssh/id_rsa', ['cat', '~/.ssh/id_rsa'], ['glob']],
    ['rm *.log', ['rm', '*.log'], ['glob']],
    ['git show HEAD~1', ['git', 'show', 'HEAD~1'], []],
    ["echo 'unterminated", ['echo', 'unterminated'], ['unterminated']],
    ['cat <<< text', ['cat', 'text'], ['redirect']],
    ['a\nb', ['a', 'b'], ['newline']],
    ['(cd x; ls)', ['cd', 'x', 'ls'], ['subshell', 'chain']],
  ])('%j', (command, words, features) => {
    const parsed = shellWords(command);
    expect(parsed.words).toEqual(words);
    expect([...parsed.features].sort()).toEqual([...features].sort());
    expect(isSimpleCommand(parsed)).toBe(features.length === 0);
  });
});

describe('command trust patterns', () => {
  it('keep the program and its subcommand for simple commands', () => {
    expect(commandPattern('git show HEAD')).toEqual({ kind: 'command_prefix', words: ['git', 'show'] });
    expect(commandPattern('npm test -- --watch')).toEqual({ kind: 'command_prefix', words: ['npm', 'test'] });
    expect(commandPattern('ls -la src')).toEqual({ kind: 'command_prefix', words: ['ls'] });
    expect(commandPattern('cat README.md')).toEqual({ kind: 'command_prefix', words: ['cat'] });
  });

  it('trust a command with operators only as its exact text', () => {
    expect(commandPattern('git log | head')).toEqual({ kind: 'exact', arguments: 'git log | head' });
    expect(commandCovered(commandPattern('git log | head'), 'git log | head')).toBe(true);
    expect(commandCovered(commandPattern('git log | head'), 'git log | head -1000')).toBe(false);
  });

  it('never cover more than plain words after the approved prefix', () => {
    const pattern = commandPattern('git show HEAD');
    expect(commandCovered(pattern, 'git show abc123')).toBe(true);
    expect(commandCovered(pattern, 'git  show')).toBe(true);
    expect(commandCovered(pattern, 'git show > x')).toBe(false);
    expect(commandCovered(pattern, 'git shower')).toBe(false);
    expect(commandCovered(pattern, "'git show'")).toBe(false);
    expect(commandCovered(pattern, 'git show $(rm -rf ~)')).toBe(false);
    expect(commandCovered(pattern, 'git show & disown')).toBe(false);
  });
});
