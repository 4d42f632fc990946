import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** One life of the app in a child process (`crash-child.ts`), its output as lines, killable with SIGKILL. */
export interface Life {
  readonly lines: string[];
  readonly exited: Promise<number | null>;
  kill(): void;
}

const childPath = fileURLToPath(new URL('./crash-child.ts', import.meta.url));

/**
 * Starts a life on a data folder; `once`: it stops after its first new session instead of starting more; `delegate`:
 * every other session it starts hands its work to a sub-agent.
 */
export function startLife(
  dataDir: string,
  baseUrl: string,
  workspace: string,
  onLine: (line: string, life: Life) => void,
  once = false,
  delegate = false,
  /** More of the child's environment (`CRASH_PLAIN: '1'`: a plain database, for a test host that opens it without a key). */
  env: NodeJS.ProcessEnv = {},
): Life {
  const child = spawn(process.execPath, ['--import', 'tsx', childPath, dataDir, baseUrl, workspace], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...(once ? { CRASH_CHILD_ONCE: '1' } : {}), ...(delegate ? { CRASH_CHILD_DELEGATE: '1' } : {}), ...env },
  });
  const lines: string[] = [];
  let buffer = '';
  const life: Life = {
    lines,
    exited: new Promise((resolve) => child.on('exit', (code) => resolve(code))),
    kill: () => child.kill('SIGKILL'),
  };
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    let newline = buffer.indexOf('\n');
    while (newline >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      lines.push(line);
      onLine(line, life);
      newline = buffer.indexOf('\n');
    }
  });
  return life;
}
