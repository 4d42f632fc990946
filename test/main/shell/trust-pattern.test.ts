import { describe, expect, it } from 'vitest';
import { BashParser } from '../../../src/main/shell/bash-parser';
import { commandTrustCovers, commandTrustPattern } from '../../../src/main/shell/trust-pattern';

const shell = await BashParser.load();

describe('command trust patterns', () => {
  it('widen a plain command to its program and subcommand, and nothing else', () => {
    expect(commandTrustPattern(shell, 'git show HEAD')).toEqual({ kind: 'command_prefix', words: ['git', 'show'] });
    expect(commandTrustPattern(shell, 'ls -la src')).toEqual({ kind: 'command_prefix', words: ['ls'] });
    expect(commandTrustPattern(shell, 'npm test')).toEqual({ kind: 'command_prefix', words: ['npm', 'test'] });
    expect(commandTrustPattern(shell, 'git log | head')).toEqual({ kind: 'exact', arguments: 'git log | head' });
    expect(commandTrustPattern(shell, 'ls *.ts')).toEqual({ kind: 'exact', arguments: 'ls *.ts' });
    expect(commandTrustPattern(shell, 'echo "open')).toEqual({ kind: 'exact', arguments: 'echo "open' });
  });

  it('never cover a redirection, a chain, a substitution, an expansion or another subcommand', () => {
    const pattern = commandTrustPattern(shell, 'git show HEAD');
    for (const covered of ['git show', 'git show abc123 --stat', "git show 'HEAD~1'", 'git show HEAD~2', 'git show "v1.0"'])
      expect(commandTrustCovers(shell, pattern, covered), covered).toBe(true);
    for (const widened of [
      'git show > ~/.ssh/id_rsa',
      'git show >> x',
      'git show; rm -rf ~',
      'git show && x',
      'git show | sh',
      'git show &',
      'git show $(id)',
      'git show `id`',
      'git show "$HOME"',
      'git show ~',
      'git show --output=~/x',
      'git show {a,b}',
      'git show *',
      'FOO=1 git show',
      'git status',
      'git',
      '(git show)',
      'git show 2>x',
      'git show <<< x',
      'git show # hidden',
      'git show\nrm -rf x',
    ]) {
      expect(commandTrustCovers(shell, pattern, widened), widened).toBe(false);
    }
  });
});
