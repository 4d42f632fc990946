import { mkdtempSync, rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { BashParser } from '../../src/main/shell/bash-parser';
import { assessCommand, commandPlace } from '../../src/main/shell/command-risk';
import { commandTrustCovers, commandTrustPattern } from '../../src/main/shell/trust-pattern';

// Review scratch test: every command below is only a string handed to the parser/analyzer; nothing is run.
const shell = await BashParser.load();
const workspace = { path: mkdtempSync('/var/tmp/review-risk-') };
afterAll(() => rmSync(workspace.path, { recursive: true, force: true }));
const sandboxed = commandPlace(workspace.path, 'bubblewrap');

interface Outcome {
  readonly label: string;
  readonly length: number;
  readonly ms: number;
  readonly result: string;
}

function probe(label: string, command: string): Outcome {
  const started = performance.now();
  let result: string;
  try {
    const risk = assessCommand(shell, command, sandboxed);
    result = `${risk.level}: ${risk.reasons.join(' | ').slice(0, 140)}`;
  } catch (error) {
    result = `THREW ${(error as Error)?.constructor?.name}: ${String((error as Error)?.message ?? error).slice(0, 140)}`;
  }
  const ms = Math.round(performance.now() - started);
  const outcome = { label, length: command.length, ms, result };
  console.log(JSON.stringify(outcome));
  return outcome;
}

describe('review: analyzer robustness', () => {
  it('deep nesting (recursion depth)', () => {
    for (const n of [500, 2000, 4900]) probe(`subshell depth ${n}`, `${'('.repeat(n)}ls${')'.repeat(n)}`);
    for (const n of [500, 2000, 6000]) probe(`$( depth ${n}`, `echo ${'$('.repeat(n)}ls${')'.repeat(n)}`);
    for (const n of [500, 2000, 3900]) probe(`{ } depth ${n}`, `${'{ '.repeat(n)}ls;${' };'.repeat(n)}`);
    for (const n of [300, 1100]) probe(`if depth ${n}`, `${'if a; then '.repeat(n)}ls${'; fi'.repeat(n)}`);
    for (const n of [500, 2000, 6000]) probe(`&& chain ${n}`, `${'a&&'.repeat(n)}a`);
    for (const n of [500, 2000, 6000]) probe(`|| chain ${n}`, `${'a||'.repeat(n)}a`);
    for (const n of [500, 2000, 6000]) probe(`! ! ! ${n}`, `${'! '.repeat(n)}ls`);
    for (const n of [1000, 4000]) probe(`arith parens ${n}`, `echo $((${'('.repeat(n)}1${')'.repeat(n)}))`);
    for (const n of [1000, 3000]) probe(`<(  depth ${n}`, `cat ${'<('.repeat(n)}ls${')'.repeat(n)}`);
    for (const n of [500, 2000]) probe(`f(){ nested ${n}`, `${'f(){ '.repeat(n)}ls;${' };'.repeat(n)}`);
    for (const n of [1000, 3000]) probe(`"$( depth ${n}`, `echo ${'"$('.repeat(n)}ls${')"'.repeat(n)}`);
  });

  it('wide lines', () => {
    for (const n of [1000, 4000]) probe(`pipes ${n}`, `${'ls | '.repeat(n)}ls`);
    for (const n of [1000, 4000]) probe(`pipes into sh ${n}`, `${'ls | sh | '.repeat(n / 4)}ls`);
    probe('long word', `echo ${'a'.repeat(19_990)}`);
    probe('over limit', `echo ${'a'.repeat(20_001)}`);
    for (const n of [500, 1500, 3000]) probe(`assignments && ${n}`, Array.from({ length: n }, (_, i) => `v${i}=1`).join('&&'));
  });

  it('odd characters', () => {
    probe('NUL', 'echo a\u0000b > /etc/x');
    probe('NUL in name', 'r\u0000m -rf /');
    probe('lone high surrogate', 'echo \ud800 > x');
    probe('lone low surrogate', 'echo \udc00\udc00');
    probe('surrogate in redirect target', 'echo x > "\ud800/etc"');
    probe('RTL override', 'echo \u202e > x');
    probe('emoji', 'echo 😀 > 😀');
    probe('BOM', '\ufeffrm -rf /');
    probe('unterminated double', 'echo "abc');
    probe('unterminated single', "echo 'abc");
    probe('unterminated $(', 'echo $(ls');
    probe('unterminated backtick', 'echo `ls');
    probe('heredoc no end', 'cat <<EOF\nrm -rf /\n');
    probe('heredoc no end to sh', 'sh <<EOF\nrm -rf /\n');
    probe('heredoc empty delim', "cat <<''\nx\n\n");
    probe('many heredocs', `${'cat <<A;'.repeat(500)}\n${'x\nA\n'.repeat(500)}`);
    probe('arith', 'echo $(( 1 << 62 )) $(( x[$(rm -rf /)] ))');
    probe('ansi C', "echo $'\\x41\\777\\u12345\\c@' > $'/etc/\\x70asswd'");
    probe('empty', '');
    probe('only spaces', '   ');
    probe('only newline', '\n\n');
    probe('CR', 'ls\r\nrm -rf /\r');
  });

  it('brace expansion blowup', () => {
    for (const k of [10, 14, 16, 18]) probe(`{a,b} x ${k}`, `echo ${'{a,b}'.repeat(k)}`);
    for (const k of [10, 14, 16, 18]) probe(`redirect {a,b} x ${k}`, `echo x > ${'{a,b}'.repeat(k)}`);
    for (const k of [2, 3, 4]) probe(`{1..63} x ${k}`, `echo ${'{1..63}'.repeat(k)}`);
  });

  it('regex in sed scripts', () => {
    for (const n of [100, 200, 400]) probe(`sed s* ${n}`, `sed '${'s'.repeat(n)}'`);
    for (const n of [100, 200, 400]) probe(`sed newlines ${n}`, `sed '${'\n'.repeat(n)}'`);
  });

  it('values x folders', () => {
    for (const n of [10, 40]) probe(`cd {1..64} then ${n} redirects`, `cd {1..64}; ${'echo>{1..64};'.repeat(n)}`);
    for (const n of [10, 40]) probe(`cd /{1..64} then ${n} redirects`, `cd /{1..64}; ${'echo>{1..64};'.repeat(n)}`);
  });

  it('trust pattern never throws', () => {
    for (const command of [`${'('.repeat(4000)}ls${')'.repeat(4000)}`, `${'a&&'.repeat(6000)}a`, 'git \ud800', 'a'.repeat(30_000)]) {
      const pattern = commandTrustPattern(shell, command);
      expect(commandTrustCovers(shell, pattern, command)).toBeTypeOf('boolean');
    }
  });
});
