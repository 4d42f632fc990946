import { spawn } from 'node:child_process';
import { temporaryFolder } from '../test/helpers';
import { runInPty } from '../src/main/tools/pty-runner';
import { plainText, scrubbedEnvironment } from '../src/main/tools/run-command';

/*
 * 100 MB of output through the pty runner with its live output going to a sink, against reading
 * the same bytes from a plain pipe in the same run; then 100 commands that print 64 KB and exit at
 * once, counting the bytes that did not arrive.
 */

const megabytes = 100;
const bytes = megabytes * 1024 * 1024;
const flood = `head -c ${bytes} /dev/zero | tr '\\0' y`;

async function throughPipe(): Promise<number> {
  const started = performance.now();
  const child = spawn('bash', ['-c', flood], { stdio: ['ignore', 'pipe', 'inherit'] });
  let received = 0;
  child.stdout.on('data', (chunk: Buffer) => (received += chunk.length));
  await new Promise((resolve) => child.on('close', resolve));
  if (received !== bytes) throw new Error(`the pipe read ${received} bytes`);
  return performance.now() - started;
}

async function throughPty(cwd: string): Promise<{ ms: number; maxPendingBytes: number; pauses: number }> {
  let live = 0;
  const started = performance.now();
  const result = await runInPty({
    command: flood,
    cwd,
    env: scrubbedEnvironment(),
    timeoutMs: 600_000,
    signal: new AbortController().signal,
    onOutput: (text) => (live += text.length),
  });
  const ms = performance.now() - started;
  if (result.totalBytes !== bytes) throw new Error(`the pty read ${result.totalBytes} bytes`);
  return { ms, maxPendingBytes: result.maxPendingBytes, pauses: result.pauses };
}

export async function runPtyBench(): Promise<void> {
  const folder = temporaryFolder('workbench-bench-pty-');
  const pipeMs = await throughPipe();
  const pty = await throughPty(folder.path);
  const memory = process.memoryUsage().rss / 1024 / 1024;
  console.log(
    `pipe: ${(megabytes / (pipeMs / 1000)).toFixed(0)} MB/s; pty: ${(megabytes / (pty.ms / 1000)).toFixed(0)} MB/s, ${pty.pauses} pauses, at most ${(pty.maxPendingBytes / 1024).toFixed(0)} KB waiting, RSS ${memory.toFixed(0)} MB`,
  );
  let lost = 0;
  for (let run = 0; run < 100; run += 1) {
    const result = await runInPty({
      command: "head -c 65536 /dev/zero | tr '\\0' x",
      cwd: folder.path,
      env: scrubbedEnvironment(),
      timeoutMs: 30_000,
      signal: new AbortController().signal,
    });
    lost += 65536 - (plainText(result.output).match(/x/g)?.length ?? 0);
  }
  folder.remove();
  const ptyRate = megabytes / (pty.ms / 1000);
  const pipeRate = megabytes / (pipeMs / 1000);
  console.log(
    JSON.stringify({
      bench: 'pty',
      mb: megabytes,
      pty_mb_per_s: Number(ptyRate.toFixed(1)),
      pipe_mb_per_s: Number(pipeRate.toFixed(1)),
      ratio: Number((ptyRate / pipeRate).toFixed(3)),
      commands: 100,
      bytes_lost: lost,
    }),
  );
}
