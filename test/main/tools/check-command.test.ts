import { describe, expect, it } from 'vitest';
import { BashParser } from '../../../src/main/shell/bash-parser';
import { CommandChecks } from '../../../src/main/tools/check-command';
import { runCommandTool } from '../../../src/main/tools/run-command';

const shell = await BashParser.load();
const runCommand = runCommandTool({ shell });
const chosen = (command: string) => [{ workspacePath: '/w', command, afterTurn: true }];

describe('when the check may run after a turn by itself', () => {
  it('runs in the sandbox after a turn that changed only the work', () => {
    expect(
      new CommandChecks({ runCommand, sandboxed: true, commands: () => chosen('npm test') }).unattended('/w', ['src/a.ts']),
    ).toBeNull();
  });

  it('never by itself in a folder the person has not trusted', () => {
    const checks = new CommandChecks({
      runCommand,
      sandboxed: true,
      commands: () => chosen('npm test'),
      restricted: (path) => path === '/w',
    });
    expect(checks.unattended('/w', ['src/a.ts'])).toBe(
      'this folder is not trusted (restricted mode), so its check runs only when you or the agent run it',
    );
  });

  it('not after a turn that changed what it runs: a project file, or the script it is', () => {
    const checks = new CommandChecks({ runCommand, sandboxed: true, commands: () => chosen('./scripts/check.sh --all') });
    expect(checks.unattended('/w', ['src/a.ts', 'package.json'])).toMatch(
      /^this turn changed package\.json, which says what the check runs/,
    );
    expect(checks.unattended('/w', ['tools/Makefile'])).toMatch(/changed tools\/Makefile/);
    expect(checks.unattended('/w', ['scripts/check.sh'])).toMatch(/changed scripts\/check\.sh/);
  });

  it('never without an OS sandbox, nor for a folder with no check', () => {
    expect(new CommandChecks({ runCommand, sandboxed: false, commands: () => chosen('npm test') }).unattended('/w', ['src/a.ts'])).toMatch(
      /without an OS sandbox/,
    );
    expect(new CommandChecks({ runCommand, sandboxed: true, commands: () => [] }).unattended('/w', ['src/a.ts'])).toMatch(
      /no check command/,
    );
  });
});

describe("which folder's check a workspace has, by the file system's case rules", () => {
  const checks = (caseIgnored: boolean) =>
    new CommandChecks({ runCommand, sandboxed: true, commands: () => chosen('npm test'), caseIgnored: () => caseIgnored });

  it('finds the check chosen for the folder written in another case where case is ignored', () => {
    expect(checks(true).configured('/W')?.command).toBe('npm test');
  });

  it('finds none for a folder differing in case where case is kept', () => {
    expect(checks(false).configured('/W')).toBeNull();
    expect(checks(false).configured('/w')?.command).toBe('npm test');
  });
});
