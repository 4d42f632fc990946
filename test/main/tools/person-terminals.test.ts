import { realpathSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { PersonTerminals } from '../../../src/main/tools/person-terminals';
import { temporaryFolder } from '../../helpers';

/* The person's own terminal: a real shell in a real pty, in the session's folder. */
describe('a terminal of the person’s', () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  });

  function terminals() {
    const home = temporaryFolder('workbench-terminal-home-');
    cleanups.push(() => home.remove());
    const output = new Map<string, string>();
    const exits = new Map<string, number>();
    const made = new PersonTerminals(
      {
        onData: (id, data) => output.set(id, (output.get(id) ?? '') + data),
        onExit: (id, code) => exits.set(id, code),
      },
      5,
      // A home of its own: the shell reads no rc file of this machine's (one that hangs would hang the test).
      { ...process.env, SHELL: '/bin/bash', HOME: home.path },
    );
    cleanups.push(() => made.dispose());
    const until = async (check: () => boolean): Promise<void> => {
      for (let tries = 0; tries < 400 && !check(); tries += 1) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(check()).toBe(true);
    };
    return { made, output, exits, until };
  }

  it('starts in the folder, runs what is typed, and ends with exit', async () => {
    const folder = temporaryFolder('workbench-terminal-');
    cleanups.push(() => folder.remove());
    const { made, output, exits, until } = terminals();
    const id = made.start('s1', folder.path, 100, 30);
    made.write(id, 'pwd; echo $((6 * 7))\r');
    await until(() => (output.get(id) ?? '').includes('42'));
    expect(output.get(id)).toContain(realpathSync(folder.path));
    made.resize(id, 120, 40);
    made.write(id, 'tput cols\r');
    await until(() => /\b120\b/.test(output.get(id) ?? ''));
    made.write(id, 'exit 3\r');
    await until(() => exits.has(id));
    expect(exits.get(id)).toBe(3);
    // Ended: typing into it is refused in words.
    expect(() => made.write(id, 'ls\r')).toThrow(/has ended/);
  });

  it('ends every shell when the app closes, and refuses to start more than it allows', async () => {
    const folder = temporaryFolder('workbench-terminal-');
    cleanups.push(() => folder.remove());
    const { made, exits, until } = terminals();
    const ids = Array.from({ length: 8 }, (_, index) => made.start(`s${index}`, folder.path, 80, 24));
    expect(() => made.start('s9', folder.path, 80, 24)).toThrow(/At most 8 terminals/);
    // A session's shell is its one shell: asked again, the same; in another folder, a new one; deleted, gone.
    expect(made.start('s0', folder.path, 80, 24)).toBe(ids[0]);
    const elsewhere = temporaryFolder('workbench-terminal-other-');
    cleanups.push(() => elsewhere.remove());
    const moved = made.start('s1', elsewhere.path, 80, 24);
    expect(moved).not.toBe(ids[1]);
    await until(() => exits.has(ids[1] ?? ''));
    made.endSession('s2');
    await until(() => exits.has(ids[2] ?? ''));
    made.dispose();
    await until(() => [...ids.slice(3), ids[0] ?? '', moved].every((id) => exits.has(id)));
    expect(() => made.start('s1', folder.path, 80, 24)).toThrow(/closing/);
  });
});
