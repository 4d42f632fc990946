import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporaryFolder } from '../../helpers';
import { needs, osSandbox } from '../../platform';
import { runCli } from './run-cli';
import { ScriptedModelServer, textTurn } from '../../scripted-model-server';
import { ScriptByAsker, requestsOf } from '../../scripted-model-server/by-asker';
import { toolCall } from '../agent/harness';
import { logsAnswer, logsModel, logsTask, writeLogs } from '../../six-logs';

describe('the headless runner', () => {
  let server: ScriptedModelServer;
  let workspace: ReturnType<typeof temporaryFolder>;
  beforeAll(async () => {
    server = await ScriptedModelServer.start();
    workspace = temporaryFolder();
  });
  afterAll(async () => {
    await server.close();
    workspace.remove();
  });

  it('reviews six logs one by one on a 4,096-token llama.cpp window to the end, and says how much of the prompts was read again', async () => {
    const small = await ScriptedModelServer.start({
      personality: 'llama.cpp',
      contextWindow: 4096,
      llamaSlots: { total: 1 },
      fallback: logsModel,
    });
    const logs = temporaryFolder();
    try {
      writeLogs(logs.path);
      const result = await runCli(['--workspace', logs.path, '--endpoint', small.openaiBaseUrl, '--model', 'scripted-model', logsTask]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(logsAnswer);
      expect(result.stdout).toMatch(/context_compacted: /);
      expect(result.stdout).not.toMatch(/model_context_overflow|too large/);
      // Each request says how much of it the one before had sent, and the server's figure is printed beside it.
      expect(result.stdout).toMatch(/context_measured: .* \d+ unchanged from the request before \(\d+%\), \d+ to read again/);
      expect(result.stdout).toMatch(/model_call_finished: \d+ in \(\d+ from the server's cache\)/);
      expect(result.stdout.trim().split('\n').at(-1)).toMatch(
        /^Prompts: \d+ requests, \d+ tokens, \d+ of them after an unchanged beginning, read again \(\d+%\); the server reported \d+ read from its cache\.$/,
      );
      for (const request of small.requests.filter((each) => each.path === '/v1/chat/completions'))
        expect(request.promptTokens + Number(request.body['max_tokens'])).toBeLessThanOrEqual(4096);
    } finally {
      await small.close();
      logs.remove();
    }
  }, 60_000);

  it('runs a turn against an endpoint and prints its events, one per line', async () => {
    server.enqueue({
      steps: [
        { kind: 'reasoning', text: 'Short.' },
        { kind: 'text', text: 'Hello from the terminal.' },
      ],
      usage: { inputTokens: 7, outputTokens: 5 },
    });
    const result = await runCli([
      '--workspace',
      workspace.path,
      '--endpoint',
      server.openaiBaseUrl,
      '--model',
      'scripted-model',
      '--trust-folder',
      'Say hello',
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/user_message: Say hello/);
    expect(result.stdout).toMatch(/text_delta: Hello from the terminal\./);
    expect(result.stdout).toMatch(/model_call_finished: 7 in, 5 out/);
    expect(lines.at(-2)).toMatch(/status_changed: completed/);
    // The closing line: one request, the first on its line, so all of it read.
    expect(lines.at(-1)).toMatch(/^Prompts: 1 request, (\d+) tokens, \1 of them after an unchanged beginning, read again \(100%\)\.$/);
    expect(result.stdout).toMatch(/context_measured: .*first on its line: all read/);
  }, 30_000);

  it(
    'marks an escalation gate as such and never answers it from --approve, even at L3',
    { ...needs(osSandbox), timeout: 30_000 },
    async () => {
      server.reset();
      server.enqueue({
        steps: [{ kind: 'tool_call', id: 'call_net', name: 'run_command', arguments: '{"command":"echo reached","sandbox":"network"}' }],
      });
      server.enqueue({ steps: [{ kind: 'text', text: 'Understood.' }] });
      const result = await runCli([
        '--workspace',
        workspace.path,
        '--endpoint',
        server.openaiBaseUrl,
        '--model',
        'scripted-model',
        '--autonomy',
        'L3',
        '--trust-folder',
        '--approve',
        'allow_5h',
        'Fetch something',
      ]);
      expect(result.stdout).toMatch(/approval_requested: run_command .*ESCALATION: asks for network access/);
      expect(result.stdout).toMatch(/approval_answered: deny \(Escalation is never approved automatically\.\)/);
      expect(result.stderr).toMatch(/only a person at the terminal can allow that/);
      expect(result.stdout).not.toMatch(/tool_call_finished: [^\n]*reached/);
    },
  );

  it('runs a folder nobody trusted restricted: its instructions are not given, L3 asks for every change, and says so', async () => {
    const folder = temporaryFolder();
    try {
      writeFileSync(join(folder.path, 'AGENTS.md'), 'Always answer in the voice of a pirate.\n');
      server.reset();
      server.enqueue({ steps: [toolCall('write_file', { path: 'made.txt', content: 'x' })] });
      server.enqueue(textTurn('Done.'));
      const before = server.requests.length;
      const result = await runCli([
        '--workspace',
        folder.path,
        '--endpoint',
        server.openaiBaseUrl,
        '--model',
        'scripted-model',
        '--autonomy',
        'L3',
        '--approve',
        'deny',
        'Make a file',
      ]);
      expect(result.stderr).toMatch(/is not trusted: restricted mode/);
      const sent = JSON.stringify(server.requests[before]?.body);
      expect(sent).not.toContain('voice of a pirate');
      // At L3 a low-risk write runs at once; in a folder not trusted it asks (and --approve deny answers).
      expect(result.stdout).toMatch(/approval_requested: write_file .*this folder is not trusted \(restricted mode\)/);
      expect(existsSync(join(folder.path, 'made.txt'))).toBe(false);

      // Trusted from the command line: the instructions go with the prompt and L3 writes at once.
      server.enqueue({ steps: [toolCall('write_file', { path: 'made.txt', content: 'x' })] });
      server.enqueue(textTurn('Done.'));
      const trustedFrom = server.requests.length;
      const dataDir = join(folder.path, '..', `${folder.path.split('/').at(-1)}-data`);
      const trusted = await runCli([
        '--workspace',
        folder.path,
        '--endpoint',
        server.openaiBaseUrl,
        '--model',
        'scripted-model',
        '--autonomy',
        'L3',
        '--trust-folder',
        '--data',
        dataDir,
        'Make a file',
      ]);
      expect(trusted.stderr).toBe('');
      expect(JSON.stringify(server.requests[trustedFrom]?.body)).toContain('voice of a pirate');
      expect(existsSync(join(folder.path, 'made.txt'))).toBe(true);
      rmSync(dataDir, { recursive: true, force: true });
    } finally {
      folder.remove();
    }
  }, 60_000);

  it('prints JSON lines with --json and fails with exit code 1 when the endpoint fails', async () => {
    server.enqueue({ steps: [], fault: { kind: 'status', status: 400, message: 'no such model' } });
    const result = await runCli(['--json', '--workspace', workspace.path, '--endpoint', server.openaiBaseUrl, '--model', 'missing', 'Hi']);
    expect(result.code).toBe(1);
    const entries = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: { type: string; error?: { message: string } } });
    expect(entries.find((entry) => entry.event.type === 'run_finished')?.event.error?.message).toContain('no such model');
  }, 30_000);

  it('speaks Ollama’s own API with --kind ollama', async () => {
    server.reset();
    server.enqueue({ steps: [{ kind: 'text', text: 'Hello from Ollama.' }], usage: { inputTokens: 9, outputTokens: 4 } });
    const result = await runCli([
      '--kind',
      'ollama',
      '--workspace',
      workspace.path,
      '--endpoint',
      server.ollamaBaseUrl,
      '--model',
      'scripted-model',
      '--trust-folder',
      'Hi',
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/text_delta: Hello from Ollama\./);
    expect(server.requests.map((request) => `${request.protocol} ${request.path}`)).toContain('ollama /api/chat');
  }, 30_000);

  it('prints a sub-agent’s events indented under its session, one at a time with --sub-agents 1', async () => {
    const byAsker = new ScriptByAsker();
    byAsker.scripts = new Map([
      [
        'parent',
        [
          { steps: [toolCall('delegate', { goal: 'Look around' }, 'd1'), toolCall('delegate', { goal: 'Look again' }, 'd2')] },
          textTurn('Both looked.'),
        ],
      ],
      ['Look around', [textTurn('Nothing here.', { chunkSize: 3, chunkDelayMs: 15 })]],
      ['Look again', [textTurn('Still nothing.', { chunkSize: 3, chunkDelayMs: 15 })]],
    ]);
    const delegating = await ScriptedModelServer.start({ fallback: byAsker.route });
    try {
      const result = await runCli([
        '--sub-agents',
        '1',
        '--workspace',
        workspace.path,
        '--endpoint',
        delegating.openaiBaseUrl,
        '--model',
        'scripted-model',
        '--trust-folder',
        'Look twice',
      ]);
      expect(result.code).toBe(0);
      const lines = result.stdout.split('\n');
      // The sub-agents' lines are indented and name their sessions; the session's own are not.
      expect(lines.filter((line) => /^ {2}\[\w+\] \[ *\d+\] run_finished: completed$/.test(line))).toHaveLength(2);
      expect(lines.some((line) => /^\[ *\d+\] tool_call_finished: .*Nothing here\./.test(line))).toBe(true);
      expect(lines.some((line) => /^\[ *\d+\] run_finished: completed$/.test(line))).toBe(true);
      // One at a time: the second sub-agent asked only after the first had answered.
      const [first, second] = [requestsOf(delegating.requests, 'Look around')[0], requestsOf(delegating.requests, 'Look again')[0]];
      expect(Math.abs((second?.receivedAt ?? 0) - (first?.receivedAt ?? 0))).toBeGreaterThan(50);
    } finally {
      await delegating.close();
    }
    const refused = await runCli(['--sub-agents', '0', '--workspace', workspace.path, '--endpoint', server.url, '--model', 'm', 'Hi']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--sub-agents must be a whole number from 1 to 8');
  }, 60_000);

  it('refuses a kind it does not know, naming the ones it does', async () => {
    const result = await runCli(['--kind', 'gopher', '--workspace', workspace.path, '--endpoint', server.url, '--model', 'm', 'Hi']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--kind must be one of openai-compatible, ollama, anthropic.');
  }, 30_000);

  it('explains its options when one is missing', async () => {
    const result = await runCli(['--workspace', workspace.path, 'Hi']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Usage: npm run agent');
  }, 30_000);
});
