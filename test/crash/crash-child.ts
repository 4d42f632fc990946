/**
 * One life of the app in the crash harness: it recovers what the last life left (resuming
 * interrupted turns, answering gates that are open again, its sub-agents' too) until every session has finished, then
 * starts new sessions until it is killed; every other one hands its work on, to a sub-agent or as a plan. Each line it prints is written synchronously, so the
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
import { testDatabaseKeys } from '../host/test-keychain';
import { crashEncrypted } from './crash-database';
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
  ...(crashEncrypted ? { databaseKeys: testDatabaseKeys(dataDir) } : {}),
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

/** The session a sub-agent works for (the one the person started, at the top of its tree); null for that one itself. */
function parentOf(sessionId: string): string | null {
  let parent: string | null = null;
  for (let link = core.core?.store.get(sessionId)?.subAgent; link; link = core.core?.store.get(link.parentSessionId)?.subAgent)
    parent = link.parentSessionId;
  return parent;
}

transport.onEvent((event, payload) => {
  if (event !== 'session:events') return;
  const { sessionId, entries } = payload as { sessionId: string; entries: JournalEntry[] };
  // A sub-agent's moments are named with its parent's session, as `sub-…` phases: the harness kills inside the tree.
  const parent = parentOf(sessionId);
  const phase = (name: string): void => say(parent === null ? `phase ${name} ${sessionId}` : `phase sub-${name} ${parent}`);
  for (const { seq, event: item } of entries) {
    if (item.type === 'checkpoint_saved') {
      say(`committed ${sessionId} ${item.checkpointId} ${seq}`);
      phase('checkpoint');
    } else if (item.type === 'text_delta') phase('streaming');
    else if (item.type === 'tool_call_started') phase('tool');
    else if (item.type === 'tool_output') phase('output');
    else if (item.type === 'approval_requested') {
      phase('approval');
      answerSoon(item.approvalId);
    }
  }
});

/**
 * Answers the gates a session's sub-agents wait at again after a restart: reopened where they were, they are not asked
 * anew, so nothing announces them. Looks until the session is done.
 */
function answerSubAgentGates(sessionId: string): () => void {
  const answered = new Set<string>();
  const timer = setInterval(() => {
    void (async () => {
      for (const child of await call<Session[]>('session:subAgents', { sessionId }).catch(() => [])) {
        if (child.status !== 'waiting_approval') continue;
        const opened = await call<{ entries: JournalEntry[] }>('session:open', { sessionId: child.id }).catch(() => null);
        const waiting = opened ? reduceSessionView(emptySessionView, opened.entries).pendingApproval : null;
        if (!waiting || answered.has(waiting.approvalId)) continue;
        const result = await transport.invoke('approval:answer', { approvalId: waiting.approvalId, decision: 'allow_once' });
        if (result.ok) answered.add(waiting.approvalId);
      }
    })();
  }, 20);
  return () => clearInterval(timer);
}

/**
 * With CRASH_CHILD_DELEGATE, every other session hands its work on (see the harness's model): half of those to a
 * sub-agent, half as a plan run by sub-agents.
 */
function taskOf(sessionId: string): string {
  const code = sessionId.charCodeAt(sessionId.length - 1);
  if (process.env['CRASH_CHILD_DELEGATE'] !== '1' || code % 2 !== 0) return `task ${sessionId}`;
  return code % 4 === 0 ? `plan ${sessionId}` : `delegate ${sessionId}`;
}

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
    const stop = answerSubAgentGates(session.id);
    if (session.status === 'interrupted') await call('session:resume', { sessionId: session.id });
    else if (view.pendingApproval) answerSoon(view.pendingApproval.approvalId);
    else if (session.status === 'idle' && view.messages.length === 0)
      await call('run:send', { sessionId: session.id, text: taskOf(session.id) });
    say(`recovered ${session.id} ${await waitUntilFinished(session.id)}`);
    stop();
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
    await call('run:send', { sessionId: session.id, text: taskOf(session.id) });
    say(`finished ${session.id} ${await waitUntilFinished(session.id)}`);
    if (process.env['CRASH_CHILD_ONCE']) break;
  }
  await core.close();
}

main().catch((error: unknown) => {
  say(`error ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
