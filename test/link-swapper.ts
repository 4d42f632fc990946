import { spawn, type ChildProcess } from 'node:child_process';

/** Toggles `<ws>/sub` between a real folder (parked at `held`) and a link to `outside`, holding each for a moment. */
const swapper = `
const fs = require('node:fs');
const [ws, held, outside, pause] = process.argv.slice(1);
const sub = ws + '/sub';
const hold = () => { const until = process.hrtime.bigint() + BigInt(pause) * 1000n; while (process.hrtime.bigint() < until) {} };
let round = 0;
for (;;) {
  try { fs.renameSync(sub, held); } catch {}
  try { fs.symlinkSync(outside, sub); } catch {}
  hold();
  try { if (fs.lstatSync(sub).isSymbolicLink()) fs.unlinkSync(sub); } catch {}
  try { fs.renameSync(held, sub); } catch {}
  hold();
  if (round++ === 0) process.stdout.write('ready\\n');
}
`;

/**
 * Starts a separate process that keeps swapping the workspace's `sub` folder for a link to `outside`, and resolves
 * once it has swapped once. `pauseMicros`: how long each state (the link, the real folder) lasts.
 * Every path is one of the test's own temporary folders; the caller kills the process.
 */
export async function startLinkSwapper(ws: string, held: string, outside: string, pauseMicros = 200): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', swapper, ws, held, outside, String(pauseMicros)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve) => child.stdout?.once('data', () => resolve()));
  return child;
}
