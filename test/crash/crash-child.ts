/**
 * One life of the app in the crash harness: it recovers what the last life left (resuming
 * interrupted turns, answering gates that are open again) until every session has finished, then
 * starts new sessions until it is killed. Each line it prints is written synchronously, so the
 * parent sees it before the next step: `committed` lines name checkpoints already in the database.
 */
import { writeSync } from 'node:fs';
import { newId } from '../../src/main/agent/ports/ids';
import { builtinTools } from '../../src/main/tools/builtin-tools';
import type { Session } from '../../src/shared/domain';
import type { JournalEntry } from '../../src/shared/events';
import { emptySessionView, reduceSessionView } from '../../src/shared/session-view';
import { LoopbackTransport } from '../host/loopback-transport';
import { createNodeCore } from '../host/node-core';
import { BashParser } from '../../src/main/shell/bash-parser';

const shell = await BashParser.load();

const [dataDir, baseUrl, workspace] = process.argv.slice(2);
if (!dataDir || !baseUrl || !workspace) throw new Error('usage: crash-child DATA_DIR BASE_URL WORKSPACE');

const say = (line: string): void => void writeSync(1, `${line}\n`);
const terminal = new Set(['completed', 'completed_with_errors', 'failed', 'cancelled']);

const transport = new LoopbackTransport();
transport.recordEvents = false;
const { core, settings } = await createNodeCore({
  dataDir,
  transport,
  frameMs: 1,
  tools: builtinTools({ shell, dataDir, newId: () => newId(), now: () => Date.now() }),
});

async function call<T>(channel: string, input: unknown): Promise<T> {
  const result = await transport.invoke(channel, input);
  if (!result.ok) throw new Error(`${channel}: ${result.error.code} ${result.error.message}`);
  return result.value as T;
}

function answerSoon(approvalId: string): void {
  // A short, random wait: the parent may kill the app while the gate is open.
  setTimeout(() => void transport.invoke('approval:answer', { approvalId, decision: 'allow_once' }), Math.random() * 15);
}

transport.onEvent((event, payload) => {
  if (event !== 'session:events') return;
  const { sessionId, entries } = payload as { sessionId: string; entries: JournalEntry[] };
  for (const { seq, event: item } of entries) {
    if (item.type === 'checkpoint_saved') {
      say(`committed ${sessionId} ${item.checkpointId} ${seq}`);
      say(`phase checkpoint ${sessionId}`);
    } else if (item.type === 'text_delta') say(`phase streaming ${sessionId}`);
    else if (item.type === 'tool_call_started') say(`phase tool ${sessionId}`);
    else if (item.type === 'approval_requested') {
      say(`phase approval ${sessionId}`);
      answerSoon(item.approvalId);
    }
  }
});

async function waitUntilFinished(sessionId: string): Promise<string> {
  for (;;) {
    const session = (await call<Session[]>('session:list', {})).find((candidate) => candidate.id === sessionId);
    if (!session) throw new Error(`session ${sessionId} is gone`);
    if (terminal.has(session.status) && !core.runtime?.isBusy(sessionId)) return session.status;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function recover(): Promise<void> {
  for (const session of await call<Session[]>('session:list', {})) {
    if (terminal.has(session.status)) continue;
    const opened = await call<{ entries: JournalEntry[] }>('session:open', { sessionId: session.id });
    const view = reduceSessionView(emptySessionView, opened.entries);
    if (session.status === 'interrupted') await call('session:resume', { sessionId: session.id });
    else if (view.pendingApproval) answerSoon(view.pendingApproval.approvalId);
    else if (session.status === 'idle' && view.messages.length === 0)
      await call('run:send', { sessionId: session.id, text: `task ${session.id}` });
    say(`recovered ${session.id} ${await waitUntilFinished(session.id)}`);
  }
}

async function main(): Promise<void> {
  if (!settings.get().defaultModel) {
    const provider = await call<{ id: string }>('provider:save', { kind: 'openai-compatible', name: 'Scripted', baseUrl });
    await call('settings:update', { defaultModel: { providerId: provider.id, model: 'scripted-model' } });
  }
  await recover();
  say('ready');
  for (;;) {
    const session = await call<Session>('session:create', { workspacePath: workspace });
    say(`started ${session.id}`);
    await call('run:send', { sessionId: session.id, text: `task ${session.id}` });
    say(`finished ${session.id} ${await waitUntilFinished(session.id)}`);
    if (process.env['CRASH_CHILD_ONCE']) break;
  }
  await core.close();
}

main().catch((error: unknown) => {
  say(`error ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
