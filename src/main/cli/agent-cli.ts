/*
 * The terminal runner (`npm run agent`): runs one turn against a given endpoint and workspace and prints its events,
 * for debugging and benchmarks; and puts back a backup of its data folder's database when that cannot be opened.
 *
 * Gates are asked at the terminal or answered by `--approve`; an escalation is never allowed without a person.
 */

import { sourceTagWorker } from '../code-map/worker-tagger';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import Conf from 'conf';
import { approvalDecisionSchema, autonomySchema, defaultSettings, providerKindSchema, settingsSchema } from '../../shared/domain';
import type { JournalEntry } from '../../shared/events';
import type { SessionRuntime } from '../agent/session/session-runtime';
import type { SessionStore } from '../agent/ports/stores';
import { createCore, type Core, type CoreOptions } from '../core/create-core';
import { MemorySecretStore } from '../secrets/memory-secret-store';
import { ConfSettingsStore } from '../settings/conf-settings-store';
import { FolderInspector } from '../workspace/folder-inspector';
import { isUnopened, restoreFromTerminal, terminalHolder, unopenedReport } from './backup-restore';
import { formatEntry } from './format-entry';
import { decideFolderTrust, gateAnswers } from './terminal-questions';

const usage = `Usage: npm run agent -- --workspace DIR --endpoint URL --model MODEL [options] "prompt"
  --kind ollama|openai-compatible|anthropic
                                       protocol of the endpoint (default: anthropic for api.anthropic.com, ollama for
                                       port 11434 without /v1, else openai-compatible)
  --autonomy L0|L1|L2|L3               what runs without asking (default L1)
  --approve ask|deny|allow_once|...    how gates are answered (default: ask on a terminal, deny otherwise)
  --trust-folder                       trust the workspace folder's authors: its instruction files are given to the model
                                       and autonomy is not capped (kept in --data's trust file; asked on a terminal)
  --data DIR                           keep the session database here (default: a temporary folder, removed after)
  --sub-agents N                       how many sub-agents run at once (default 2)
  --sub-agent-depth N                  how deep sub-agents may hand work on; 0 turns delegation off (default 2)
  --json                               print each event as one JSON line
  --restore-backup newest|PATH         with --data: when its database cannot be opened, put back the newest backup kept
                                       beside it that opens (or the one named), keeping the file it replaces beside it;
                                       then runs the turn, if one is given, or exits`;

/** The protocol an endpoint most likely speaks, from its address: Ollama's own API is at the root of port 11434. */
function guessKind(endpoint: string): string {
  if (/api\.anthropic\.com/.test(endpoint)) return 'anthropic';
  if (/:11434\/?$/.test(endpoint)) return 'ollama';
  return 'openai-compatible';
}

/**
 * `--restore-backup` (not with `--help`): puts the backup back first. The exit code when the run ends there (it failed,
 * or no turn was given), or null when the turn runs next, on what it put back.
 */
function restoreFirst(
  values: {
    readonly data?: string | undefined;
    readonly help?: boolean | undefined;
    readonly 'restore-backup'?: string | undefined;
  } & TurnArguments,
  prompt: string,
): number | null {
  const choice = values['restore-backup'];
  if (choice === undefined || values.help) return null;
  if (!values.data) {
    console.error(`--restore-backup needs --data DIR: the data folder whose database it puts back.\n${usage}`);
    return 2;
  }
  const restored = restoreFromTerminal(resolve(values.data), choice, Date.now());
  (restored.ok ? console.log : console.error)(restored.message);
  if (!restored.ok) return 1;
  return prompt === '' && !values.workspace && !values.endpoint && !values.model ? 0 : null;
}

interface TurnArguments {
  readonly workspace?: string | undefined;
  readonly endpoint?: string | undefined;
  readonly model?: string | undefined;
}

/** The core on the data folder; when its database cannot be opened, null, after saying why and which backups open. */
async function coreOrReport(options: CoreOptions): Promise<Core | null> {
  try {
    return await createCore(options);
  } catch (error) {
    if (!isUnopened(error)) throw error;
    console.error(unopenedReport(error, options.dataDir));
    return null;
  }
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      workspace: { type: 'string' },
      endpoint: { type: 'string' },
      model: { type: 'string' },
      kind: { type: 'string' },
      autonomy: { type: 'string', default: 'L1' },
      approve: { type: 'string' },
      data: { type: 'string' },
      json: { type: 'boolean', default: false },
      'trust-folder': { type: 'boolean', default: false },
      'sub-agents': { type: 'string', default: '2' },
      'sub-agent-depth': { type: 'string', default: '2' },
      'restore-backup': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  const prompt = positionals.join(' ').trim();
  const restoring = restoreFirst(values, prompt);
  if (restoring !== null) return restoring;
  if (values.help || !values.workspace || !values.endpoint || !values.model || prompt === '') {
    console.error(usage);
    return values.help ? 0 : 2;
  }
  const autonomy = autonomySchema.safeParse(values.autonomy);
  if (!autonomy.success) {
    console.error(`--autonomy must be one of L0, L1, L2, L3.\n${usage}`);
    return 2;
  }
  const concurrency = settingsSchema.shape.subAgentConcurrency.safeParse(Number(values['sub-agents']));
  const depth = settingsSchema.shape.subAgentDepth.safeParse(Number(values['sub-agent-depth']));
  if (!concurrency.success || !depth.success) {
    console.error(`--sub-agents must be a whole number from 1 to 8, and --sub-agent-depth from 0 to 4.\n${usage}`);
    return 2;
  }
  const approveMode = values.approve ?? (process.stdin.isTTY ? 'ask' : 'deny');
  if (approveMode !== 'ask' && !approvalDecisionSchema.safeParse(approveMode).success) {
    console.error(`--approve must be ask or one of ${approvalDecisionSchema.options.join(', ')}.`);
    return 2;
  }
  // The terminal runner talks to servers; the built-in runtime's models are the app's (Settings → Models on this computer).
  const serverKinds = providerKindSchema.options.filter((option) => option !== 'local');
  const kind = providerKindSchema.safeParse(values.kind ?? guessKind(values.endpoint));
  if (!kind.success || kind.data === 'local') {
    console.error(`--kind must be one of ${serverKinds.join(', ')}.`);
    return 2;
  }

  const workspace = await new FolderInspector().resolveFolder(resolve(values.workspace));
  const dataDir = values.data ? resolve(values.data) : mkdtempSync(join(tmpdir(), 'workbench-agent-'));
  const settings = new ConfSettingsStore(
    new Conf<Record<string, unknown>>({
      cwd: dataDir,
      projectName: 'agent-workbench',
      configName: 'headless-settings',
      defaults: { ...defaultSettings },
    }),
  );
  settings.set({ ...settings.get(), subAgentConcurrency: concurrency.data, subAgentDepth: depth.data });
  const questions = process.stdin.isTTY ? createInterface({ input: process.stdin, output: process.stderr }) : null;

  let runtime: SessionRuntime | null = null;
  const prompts = { tokens: 0, reread: 0, cached: 0, calls: 0 };
  // A sub-agent's events are printed indented by its depth, after the name of its session; the session's own are not.
  let sessions: Pick<SessionStore, 'get'> | null = null;
  const depthOf = (id: string): number => sessions?.get(id)?.subAgent?.depth ?? 0;
  const print = (id: string, entry: JournalEntry): void => {
    const depth = depthOf(id);
    if (values.json) console.log(JSON.stringify(depth === 0 ? entry : { ...entry, subAgentSessionId: id, depth }));
    else console.log(depth === 0 ? formatEntry(entry) : `${'  '.repeat(depth)}[${id}] ${formatEntry(entry)}`);
    const event = entry.event;
    if (event.type === 'context_measured') {
      prompts.tokens += event.tokens;
      prompts.reread += event.tokens - Math.min(event.tokens, event.shared ?? 0);
      prompts.calls += 1;
    }
    if (event.type === 'model_call_finished') prompts.cached += event.cacheReadTokens ?? 0;
    if (event.type === 'approval_requested')
      void answerApproval(event.approvalId, `${event.tool} ${event.summary} (${event.risk}: ${event.reason})`, event.escalation?.kind);
    if (event.type === 'plan_proposed' && event.needsApproval) void answerPlan(event.planId);
  };
  const { answerApproval, answerPlan } = gateAnswers({ approveMode, questions, runtime: () => runtime });

  const core = await coreOrReport({
    dataDir,
    holderName: terminalHolder,
    settings,
    secrets: new MemorySecretStore(),
    environmentAnthropicKey: process.env['ANTHROPIC_API_KEY'] ?? null,
    builtinTools: true,
    tagWorker: sourceTagWorker(),
    listener: { onEntries: (id, entries) => entries.forEach((entry) => print(id, entry)), onSessionChanged: () => undefined },
    // Sessions of an earlier run left in the middle of a turn stay so: this runs one new turn.
    recoverInterrupted: false,
  });
  if (!core) {
    questions?.close();
    return 1;
  }
  runtime = core.runtime;
  const { store } = core;
  sessions = store;
  await decideFolderTrust(core.folderTrust, workspace, values['trust-folder'], questions);
  const endpoint = core.providers.save({ kind: kind.data, name: 'headless', baseUrl: values.endpoint });
  const { id: sessionId } = await runtime.sessions.create({
    title: prompt.slice(0, 60),
    workspacePath: workspace,
    model: { providerId: endpoint.id, model: values.model },
    autonomy: autonomy.data,
  });
  process.once('SIGINT', () => void runtime?.cancel(sessionId));
  runtime.send(sessionId, prompt);
  await runtime.whenIdle(sessionId);
  // The closing line says how much of the prompts a server had to read again: what its prompt cache could not keep.
  if (prompts.calls > 0 && !values.json)
    console.log(
      `Prompts: ${prompts.calls} ${prompts.calls === 1 ? 'request' : 'requests'}, ${prompts.tokens} tokens, ${prompts.reread} of them after an unchanged beginning, read again (${Math.round((prompts.reread / Math.max(1, prompts.tokens)) * 100)}%)${prompts.cached > 0 ? `; the server reported ${prompts.cached} read from its cache` : ''}.`,
    );
  const status = store.get(sessionId)?.status;
  questions?.close();
  await core.close();
  if (!values.data) rmSync(dataDir, { recursive: true, force: true });
  return status === 'completed' || status === 'completed_with_errors' ? 0 : status === 'cancelled' ? 130 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
