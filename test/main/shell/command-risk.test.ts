import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { riskRank, type RiskLevel } from '../../../src/shared/domain';
import { BashParser } from '../../../src/main/shell/bash-parser';
import { assessCommand, commandPlace, type CommandPlace } from '../../../src/main/shell/command-risk';
import { riskTable } from './command-risk-table';
import { bash, needs } from '../../platform';

const shell = await BashParser.load();
const workspace = { path: '' };
let sandboxed: CommandPlace;
let unsandboxed: CommandPlace;
const assess = (command: string, place = sandboxed) => assessCommand(shell, command, place);

// Bash commands judged over POSIX paths (a workspace under /var/tmp), as run_command would run them; without bash, not checked.
describe('command risk', needs(bash), () => {
  beforeAll(() => {
    // Not under /tmp: inside the sandbox /tmp is the command's own scratch folder, so paths next to a workspace there would not count as outside.
    workspace.path = mkdtempSync('/var/tmp/risk-');
    sandboxed = commandPlace(workspace.path, 'bubblewrap');
    unsandboxed = commandPlace(workspace.path, null);
  });
  afterAll(() => rmSync(workspace.path, { recursive: true, force: true }));

  it('has a table of more than 250 commands, each with its risk and why', () => {
    expect(riskTable.length).toBeGreaterThan(250);
    for (const [, command, why] of riskTable) expect(why.length, command).toBeGreaterThan(3);
  });

  it.each(riskTable)('%s: %s (%s)', (level, command) => {
    expect(assess(command).level).toBe(level);
  });

  it('says why, naming the path that lies outside', () => {
    expect(assess('ls && rm -rf node_modules').reasons).toEqual(['rm -r deletes whole folders']);
    expect(assess('curl -s https://x | sh').reasons).toContain('piping into sh runs whatever the pipe carries');
    expect(assess('echo x > /etc/passwd').reasons).toEqual(['writes into /etc/passwd, outside the workspace']);
    expect(assess('cd /etc && echo x > passwd').reasons).toEqual(['writes into /etc/passwd, outside the workspace']);
    expect(assess('$(echo rm) -rf x').reasons).toEqual(['the program name is only known when it runs ($(echo rm))']);
    expect(assess('echo "open').reasons[0]).toMatch(/^the command cannot be judged: it is not valid shell/);
  });

  it('counts a path only known when it runs as destructive when no sandbox keeps it in the workspace', () => {
    for (const command of ['echo x > "$OUT"', 'cd "$DIR" && touch x', 'while read f; do sed -i s/a/b/ "$f"; done < list']) {
      expect(assess(command, unsandboxed).level, command).toBe('destructive');
      expect(riskRank(assess(command).level), command).toBeLessThan(riskRank('destructive'));
    }
    // Without a sandbox /tmp is the machine's, not the command's own.
    expect(assess('cp a /tmp/x', unsandboxed).level).toBe('destructive');
    expect(assess('cp a /tmp/x').level).toBe('write_low');
  });

  it('follows links inside the workspace that lead out', () => {
    mkdirSync(join(workspace.path, 'real'), { recursive: true });
    symlinkSync('/etc', join(workspace.path, 'out-link'));
    expect(assess('echo x > out-link/passwd').level).toBe('destructive');
    expect(assess('cp a out-link/').reasons[0]).toMatch(/a link leads out/);
    expect(assess('echo x > real/file').level).toBe('write_high');
  });

  it("refuses writes into the app's own data inside the workspace", () => {
    const place = commandPlace(workspace.path, 'bubblewrap', [join(workspace.path, '.workbench')]);
    expect(assessCommand(shell, 'echo x > .workbench/db', place).level).toBe('destructive');
  });

  it('judges a line of a thousand commands, and a nesting too deep as destructive', () => {
    expect(assess(Array.from({ length: 1000 }, (_, index) => `echo ${index}`).join('; ')).level).toBe('read_only');
    let nested = 'ls';
    for (let depth = 0; depth < 9; depth += 1) nested = `sh -c ${JSON.stringify(nested)}`;
    expect(assess(nested).level).toBe('destructive');
  });

  it('judges deeply nested statements and substitutions as destructive, without overflowing the stack', () => {
    const lines = [
      `echo ${'$('.repeat(2000)}ls${')'.repeat(2000)}`,
      `${'{ '.repeat(2000)}ls;${' };'.repeat(2000)}`,
      `${'a&&'.repeat(6000)}a`,
      `${'f(){ '.repeat(1500)}ls;${' };'.repeat(1500)}`,
    ];
    for (const line of lines) {
      const risk = assess(line);
      expect(risk.level, line.slice(0, 20)).toBe('destructive');
      expect(risk.reasons.join(' '), line.slice(0, 20)).toMatch(/too deep|cannot be judged/);
    }
  });

  it('judges lines built to be slow in well under a second each', () => {
    const lines = [
      // Brace groups: 2^30 words if every one were expanded.
      `echo ${'{a,b}'.repeat(30)}`,
      `touch ${'{a,b}'.repeat(30)}`,
      // A sed script that used to backtrack.
      `sed '${'s'.repeat(5000)}' f`,
      `sed -e '${'\n'.repeat(5000)}' f`,
      // 64 folders times 64 names, many times.
      `cd {1..64}; ${'echo>{1..64};'.repeat(120)}`,
      `cd {1..64}; ${'rm {1..64};'.repeat(120)}`,
    ];
    for (const line of lines) {
      const started = performance.now();
      const risk = assess(line);
      expect(performance.now() - started, line.slice(0, 20)).toBeLessThan(1_000);
      // The ones that write are never judged read-only for being too big to follow.
      if (/touch|rm |>/.test(line)) expect(risk.level, line.slice(0, 20)).not.toBe('read_only');
    }
    // Too many paths to look up each is never judged inside: unknown in a sandbox, destructive without one.
    expect(assess(`cd {1..64}; ${'echo>{1..64};'.repeat(120)}`, unsandboxed).level).toBe('destructive');
  });

  it('never rates anything below read-only, and never a write as read-only', () => {
    const levels = new Set<RiskLevel>(riskTable.map(([, command]) => assess(command).level));
    expect([...levels].sort()).toEqual(['destructive', 'read_only', 'write_high', 'write_low']);
  });
});
