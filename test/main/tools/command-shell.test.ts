import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInPty, stopAll } from '../../../src/main/tools/pty-runner';
import { plainText, scrubbedEnvironment } from '../../../src/main/tools/run-command';
import { temporaryFolder } from '../../helpers';
import { bash, needs } from '../../platform';

describe("a command's environment", () => {
  const source = {
    Path: 'C:\\Windows\\System32;C:\\Program Files\\Git\\cmd',
    SystemRoot: 'C:\\Windows',
    USERPROFILE: 'C:\\Users\\me',
    ANTHROPIC_API_KEY: 'secret',
    GITHUB_TOKEN: 'secret',
  };

  it('keeps on Windows the PATH however it is spelled, and what Windows programs need to start', () => {
    const env = scrubbedEnvironment(source, 'win32');
    expect(env).toMatchObject({ Path: source.Path, SystemRoot: 'C:\\Windows', USERPROFILE: 'C:\\Users\\me' });
    expect(env).not.toHaveProperty('ANTHROPIC_API_KEY');
    expect(env).not.toHaveProperty('GITHUB_TOKEN');
  });

  it('elsewhere keeps only the names as they are spelled there', () => {
    const env = scrubbedEnvironment({ ...source, PATH: '/usr/bin' }, 'linux');
    expect(env['PATH']).toBe('/usr/bin');
    expect(env).not.toHaveProperty('Path');
    expect(env).not.toHaveProperty('SystemRoot');
  });
});

describe('stopping a command on Windows', () => {
  it('ends it through the pseudo console, as Windows has no process group to signal', () => {
    const killed: string[] = [];
    stopAll({ pid: 4242, kill: () => void killed.push('pseudo console') }, 'win32');
    expect(killed).toEqual(['pseudo console']);
    // One already gone is let be.
    expect(() =>
      stopAll(
        {
          pid: 4242,
          kill: () => {
            throw new Error('gone');
          },
        },
        'win32',
      ),
    ).not.toThrow();
  });
});

describe('the shell a command runs in', needs(bash), () => {
  let folder: ReturnType<typeof temporaryFolder>;
  beforeAll(() => {
    folder = temporaryFolder('workbench shell ');
  });
  afterAll(() => folder.remove());

  it('is the bash it is given, started with a fixed line and no command text on its command line', async () => {
    const seen = join(folder.path, 'arguments');
    const wrapper = join(folder.path, 'my bash');
    writeFileSync(wrapper, `#!/bin/bash\nprintf '%s\\n' "$@" > '${seen}'\nexec /bin/bash "$@"\n`);
    chmodSync(wrapper, 0o755);
    const command = `printf '%s|' "it's" "$HOME" 'a "quoted" \\ word'; exit 4`;
    const result = await runInPty({
      command,
      cwd: folder.path,
      env: scrubbedEnvironment({ PATH: process.env['PATH'], HOME: '/home/someone' }, 'linux'),
      timeoutMs: 10_000,
      signal: new AbortController().signal,
      shellPath: wrapper,
    });
    expect(plainText(result.output)).toBe(`it's|/home/someone|a "quoted" \\ word|`);
    expect(result.exitCode).toBe(4);
    // What Windows would have to quote for MSYS: no quote, backslash or glob character, and none of the command's text.
    const args = readFileSync(seen, 'utf8').trimEnd().split('\n');
    expect(args.slice(0, 3)).toEqual(['--noprofile', '--norc', '-c']);
    for (const argument of args) {
      expect(argument).not.toMatch(/["'\\*?[{~]/);
      expect(argument).not.toContain('printf');
    }
  });
});
