import { describe, expect, it } from 'vitest';
import type { Session } from '../../../../src/shared/domain';
import type { JournalEntry } from '../../../../src/shared/events';
import { emptySessionView, reduceSessionView } from '../../../../src/shared/session-view';
import { redactSecrets, redactValue } from '../../../../src/main/agent/history/secret-redaction';
import type { LoopbackTransport } from '../../../host/loopback-transport';
import { textTurn, type ScriptedModelServer } from '../../../scripted-model-server';
import { useScriptedCore } from '../../scripted-core';

const anthropicKey = 'sk-ant-api03-Zq8vN3kLr5TpXw2YbHc7JdMf4GsAe9Ru';
const openaiKey = 'sk-proj-4fKp9QzR2mXw7LvB1nTc8YdHs3GjE6Ua';
const githubToken = 'ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5';
const awsKey = 'AKIAIOSFODNN7EXAMPLE';
const privateKey = [
  '-----BEGIN OPENSSH PRIVATE KEY-----',
  'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ',
  '-----END OPENSSH PRIVATE KEY-----',
].join('\n');
const message = [
  `Use ${anthropicKey} for Claude and ${openaiKey} for the other one.`,
  `git push with ${githubToken}; AWS id ${awsKey}.`,
  'curl -H "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl" https://api.example.com',
  'The .env holds DATABASE_PASSWORD=hunter2hunter2 and export STRIPE_SECRET="whsec_live_0123456789"',
  privateKey,
].join('\n');

describe('secrets in an exported session', () => {
  let server: ScriptedModelServer;
  let transport: LoopbackTransport;
  useScriptedCore({}, (started) => ({ server, transport } = started));

  async function call<T>(channel: string, input: unknown): Promise<T> {
    const result = await transport.invoke(channel, input);
    if (!result.ok) throw Object.assign(new Error(result.error.message), { code: result.error.code });
    return result.value as T;
  }

  async function sessionWithSecrets(): Promise<Session> {
    const session = await call<Session>('session:create', { title: 'Keys' });
    server.enqueue(textTurn(`Noted: ${anthropicKey}`));
    await call('run:send', { sessionId: session.id, text: message });
    await call('session:open', { sessionId: session.id });
    for (let waited = 0; waited < 100; waited += 1) {
      const [listed] = await call<Session[]>('session:list', {});
      if (listed?.status === 'completed') break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return session;
  }

  it('are redacted by default, and the redacted file still imports as a session', async () => {
    const session = await sessionWithSecrets();
    const exported = await call<{ document: string; redacted: number }>('session:export', { sessionId: session.id });
    for (const secret of [
      anthropicKey,
      openaiKey,
      githubToken,
      awsKey,
      'hunter2hunter2',
      'whsec_live_0123456789',
      'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ',
    ])
      expect(exported.document).not.toContain(secret);
    expect(exported.document).not.toContain('eyJhbGciOiJIUzI1NiJ9');
    expect(exported.redacted).toBeGreaterThanOrEqual(9);
    expect(exported.document).toContain('DATABASE_PASSWORD=[REDACTED]');
    expect(exported.document).toContain('Bearer [REDACTED]');
    expect(exported.document).toContain('-----BEGIN OPENSSH PRIVATE KEY-----[REDACTED]-----END OPENSSH PRIVATE KEY-----');

    const imported = await call<Session>('session:import', { document: exported.document });
    const opened = await call<{ entries: JournalEntry[] }>('session:open', { sessionId: imported.id });
    const texts = reduceSessionView(emptySessionView, opened.entries).messages.map((entry) => entry.text);
    expect(texts[0]).toContain('Use [REDACTED] for Claude');
    expect(texts[1]).toBe('Noted: [REDACTED]');
  });

  it('are kept as they are when the raw export is asked for', async () => {
    const session = await sessionWithSecrets();
    const exported = await call<{ document: string; redacted: number }>('session:export', { sessionId: session.id, raw: true });
    expect(exported.redacted).toBe(0);
    for (const secret of [anthropicKey, openaiKey, githubToken, awsKey, 'hunter2hunter2']) expect(exported.document).toContain(secret);
  });
});

describe('redactValue', () => {
  it("keeps an attached image's bytes whole, even where a run of them looks like a key", () => {
    const image = `${'QUJD'.repeat(100)}+AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q/${'QUJD'.repeat(100)}`;
    const value = { kind: 'image', data: image, caption: 'key AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q' };
    expect(redactValue(value)).toEqual({ value: { ...value, caption: 'key [REDACTED]' }, count: 1 });
  });
});

describe('redactSecrets', () => {
  it('leaves ordinary text alone, prose about tokens included', () => {
    const text = 'The token count is 4096; a password: field is required. sk-short and AKIA are not keys. task-ant-farm.';
    expect(redactSecrets(text)).toEqual({ text, count: 0 });
  });

  it('redacts a quoted field of JSON held as text and keeps it valid JSON', () => {
    const arguments_ = JSON.stringify({ url: 'https://x', apiKey: 'abcd1234efgh5678', password: 'correct horse' });
    const { text, count } = redactSecrets(arguments_);
    expect(count).toBe(2);
    expect(JSON.parse(text)).toEqual({ url: 'https://x', apiKey: '[REDACTED]', password: '[REDACTED]' });
  });
});
