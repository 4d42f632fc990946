import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A loopback port with nothing listening on it. */
export async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** A fresh temporary folder and a function that removes it. */
export function temporaryFolder(prefix = 'workbench-test-'): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Polls until the check passes or the time is up. */
export async function waitFor(check: () => boolean, timeoutMs = 5_000, what = 'condition'): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The `code` of what `run` throws (`ELOOP`, `EREPARSE`), or undefined when it throws nothing. */
export function thrownCode(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code;
  }
}

/**
 * Whether a process still runs: it is neither gone nor a zombie waiting for its parent to reap it (where `/proc` says
 * so; elsewhere a signal 0 tells whether it is there at all).
 */
export function alive(pid: number): boolean {
  if (existsSync('/proc/self')) {
    try {
      return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The arguments that start `test/fixtures/slow-mcp-server.mjs` under Node: an MCP server that writes its pid to `pidFile`
 * (relative to its working folder, or absolute) and answers nothing for `delayMs`.
 */
export function slowMcpServerArgs(pidFile: string, delayMs: number): string[] {
  return [fileURLToPath(new URL('./fixtures/slow-mcp-server.mjs', import.meta.url)), pidFile, String(delayMs)];
}

/**
 * Leaves a database's files as a crash of the app would, with what was last written only in its write-ahead log: the
 * file and its log are copied while `db` is open, `db` is closed (which folds the log in), and the copies are put back.
 * The copies' names (`<path>.copy`, `<path>.copy-wal`) stay behind, empty.
 */
export function leaveAsCrashed(path: string, db: { close(): unknown }): void {
  writeFileSync(`${path}.copy`, readFileSync(path));
  writeFileSync(`${path}.copy-wal`, readFileSync(`${path}-wal`));
  db.close();
  for (const suffix of ['', '-wal']) writeFileSync(`${path}${suffix}`, readFileSync(`${path}.copy${suffix}`));
  for (const suffix of ['', '-wal']) writeFileSync(`${path}.copy${suffix}`, '');
}
