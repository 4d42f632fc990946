import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Starts another process that holds the database at `path` open (named `name` to others) until its stdin ends, as a
 * second copy of the app or the terminal runner would (with `hold-only`, without opening it: see the fixture); resolves
 * once it holds it. The caller ends it.
 */
export async function otherProcessHolding(path: string, name: string, mode: 'open' | 'hold-only' = 'open'): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/hold-database.ts', path, name, mode], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('held')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the holding process ended (${code}): ${errors}`)));
  });
  return child;
}

/** Resolves once the process has ended. */
export const ended = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));
