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

  static async start(): Promise<RemoteScriptedServer> {
    const entry = fileURLToPath(new URL('./main.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', entry], { stdio: ['ignore', 'pipe', 'inherit'] });
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
