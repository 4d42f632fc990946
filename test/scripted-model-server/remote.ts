import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { ScriptedTurn } from './script';

/** A scripted model server in a child process, driven over HTTP. */
export class RemoteScriptedServer {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {}

  /** `countPrompts: false`: see the server option of that name. */
  static async start(options: { countPrompts?: boolean } = {}): Promise<RemoteScriptedServer> {
    const entry = fileURLToPath(new URL('./main.ts', import.meta.url));
    const env = { ...process.env, SCRIPTED_COUNT_PROMPTS: options.countPrompts === false ? '0' : '1' };
    const child = spawn(process.execPath, ['--import', 'tsx', entry], { stdio: ['ignore', 'pipe', 'inherit'], env });
    const line = await new Promise<string>((resolve, reject) => {
      const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
      lines.once('line', resolve);
      child.once('exit', (code) => reject(new Error(`The scripted server exited with ${code}`)));
    });
    return new RemoteScriptedServer(child, (JSON.parse(line) as { url: string }).url);
  }

  get openaiBaseUrl(): string {
    return `${this.url}/v1`;
  }

  async enqueue(...turns: ScriptedTurn[]): Promise<void> {
    const response = await fetch(`${this.url}/__script/enqueue`, { method: 'POST', body: JSON.stringify({ turns }) });
    if (!response.ok) throw new Error(`enqueue failed: ${response.status}`);
  }

  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    await exited;
  }
}
