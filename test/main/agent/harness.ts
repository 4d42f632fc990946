import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import Conf from 'conf';
import { z } from 'zod';
import { defaultSettings, type Autonomy, type Settings } from '../../../src/shared/domain';
import type { JournalEntry, ToolCallDraftEvent } from '../../../src/shared/events';
import { emptySessionView, reduceSessionView, type SessionView } from '../../../src/shared/session-view';
import type { Clock } from '../../../src/main/agent/ports/clock';
import { defineTool, type Tool } from '../../../src/main/agent/ports/tools';
import type { ModelProvider } from '../../../src/main/agent/ports/model-provider';
import { runCommandTool } from '../../../src/main/tools/run-command';
import type { SessionRuntime } from '../../../src/main/agent/session/session-runtime';
import { createCore } from '../../../src/main/core/create-core';
import type { FolderTrustStore } from '../../../src/main/workspace/folder-trust-store';
import { EncryptedFileSecretStore } from '../../../src/main/secrets/encrypted-file-secret-store';
import { ConfSettingsStore } from '../../../src/main/settings/conf-settings-store';
import { SqliteAccountingStore } from '../../../src/main/store/sqlite-accounting-store';
import { SqliteSessionStore } from '../../../src/main/store/sqlite-session-store';
import { SqliteTrustStore } from '../../../src/main/store/sqlite-trust-store';
import { SqliteCheckpointStore } from '../../../src/main/store/sqlite-checkpoint-store';
import { BashParser } from '../../../src/main/shell/bash-parser';
import { assessCommand, commandPlace } from '../../../src/main/shell/command-risk';
import { commandTrustCovers, commandTrustPattern } from '../../../src/main/shell/trust-pattern';
import { temporaryFolder } from '../../helpers';
import { memoryKeyCipher } from '../../host/test-cipher';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { ScriptedModelServer, type ScriptedTurn } from '../../scripted-model-server';

const shell = await BashParser.load();

/** A clock the test moves by hand; sleeps resolve at once (retries do not wait). */
export class ManualClock implements Clock {
  constructor(public time = Date.UTC(2026, 10, 22, 9, 0, 0)) {}
  now(): number {
    return this.time;
  }
  advance(ms: number): void {
    this.time += ms;
  }
  async sleep(_ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason;
  }
}

/** Tools for runtime tests: what they did is recorded, and some can be made slow or to fail. */
export function testTools(log: string[]): { tools: Tool[]; release: () => void } {
  const waiting: Array<() => void> = [];
  const gate = (): Promise<void> => new Promise((resolve) => waiting.push(resolve));
  return {
    release: () => waiting.splice(0).forEach((resolve) => resolve()),
    tools: [
      defineTool({
        name: 'read_note',
        description: 'Reads a note.',
        input: z.object({ name: z.string() }).strict(),
        risk: 'read_only',
        execute: async (input) => {
          log.push(`read ${input.name}`);
          return { output: `contents of ${input.name}` };
        },
      }),
      defineTool({
        name: 'write_note',
        description: 'Writes a note.',
        input: z.object({ name: z.string(), text: z.string() }).strict(),
        risk: 'write_low',
        execute: async (input) => {
          log.push(`write ${input.name}`);
          return { output: `wrote ${input.text.length} characters to ${input.name}` };
        },
      }),
      defineTool({
        name: 'publish',
        description: 'Publishes.',
        input: z.object({ target: z.string() }).strict(),
        risk: 'write_high',
        execute: async (input) => {
          log.push(`publish ${input.target}`);
          return { output: 'published' };
        },
      }),
      defineTool({
        name: 'wipe',
        description: 'Deletes everything.',
        input: z.object({}).strict(),
        risk: 'destructive',
        execute: async () => {
          log.push('wipe');
          return { output: 'wiped' };
        },
      }),
      defineTool({
        name: 'shell',
        description: 'Runs a command (test stand-in: it does not run anything).',
        input: z.object({ command: z.string() }).strict(),
        risk: 'write_high',
        assess: (input, context) => {
          const risk = assessCommand(shell, input.command, commandPlace(context.workspacePath, 'bubblewrap'));
          // The stand-in asks for every command at L1, as the real shell does for anything not read-only.
          return { level: risk.level === 'read_only' ? 'write_high' : risk.level, reason: risk.reasons.join('; ') };
        },
        trustPattern: (input) => commandTrustPattern(shell, input.command),
        exactPattern: (input) => ({ kind: 'exact', arguments: input.command }),
        covers: (pattern, input) => commandTrustCovers(shell, pattern, input.command),
        summarize: (input) => input.command,
        execute: async (input, context) => {
          log.push(`shell ${input.command}`);
          context.emitOutput(`$ ${input.command}\n`);
          return { output: `ran ${input.command}` };
        },
      }),
      defineTool({
        name: 'slow',
        description: 'Waits until released, ignoring Stop.',
        input: z.object({}).strict(),
        risk: 'read_only',
        execute: async () => {
          log.push('slow started');
          await gate();
          log.push('slow finished');
          return { output: 'done slowly' };
        },
      }),
      defineTool({
        name: 'guarded_write',
        description: 'Writes a file, but never outside the workspace.',
        input: z.object({ path: z.string() }).strict(),
        risk: 'write_low',
        assess: (input) =>
          input.path.startsWith('/') || input.path.includes('..')
            ? { level: 'write_low', reason: 'writes a file', refused: `${input.path} is outside the workspace.` }
            : { level: 'write_low', reason: 'writes a file' },
        execute: async (input) => {
          log.push(`guarded ${input.path}`);
          return { output: 'written' };
        },
      }),
      defineTool({
        name: 'big',
        description: 'Prints a lot.',
        input: z.object({ bytes: z.number().int() }).strict(),
        risk: 'read_only',
        execute: async (input) => ({ output: 'x'.repeat(input.bytes) }),
      }),
      defineTool({
        name: 'broken',
        description: 'Always fails.',
        input: z.object({}).strict(),
        risk: 'read_only',
        execute: async () => {
          throw new Error('the disk is on fire');
        },
      }),
    ],
  };
}

/**
 * run_command as the runtime sees it with an OS sandbox in use (its own risk, escalation and grant pattern), except that
 * it runs nothing: it records the command and the sandbox asked for.
 */
export function sandboxedRunCommand(log: string[]): Tool {
  const real = runCommandTool({ shell, sandbox: { available: true, kind: 'bubblewrap', path: 'bwrap' } });
  return {
    ...real,
    execute: async (input) => {
      const { command, sandbox } = input as { command: string; sandbox: string };
      log.push(`run ${command} (${sandbox})`);
      return { output: `ran ${command}\n[exit code 0]` };
    },
  };
}

/** The messages the model was sent in the newest request, as `role: text`, without the system prompt. */
export function lastPrompt(server: ScriptedModelServer): string[] {
  const body = server.requests.at(-1)?.body as { messages: Array<{ role: string; content: unknown }> };
  return body.messages
    .filter((message) => message.role !== 'system')
    .map((message) => `${message.role}: ${typeof message.content === 'string' ? message.content : JSON.stringify(message.content)}`);
}

export function toolCall(name: string, args: unknown, id = `call_${name}`): ScriptedTurn['steps'][number] {
  return { kind: 'tool_call', id, name, arguments: JSON.stringify(args) };
}

export interface Harness {
  readonly runtime: SessionRuntime;
  readonly store: SqliteSessionStore;
  readonly trust: SqliteTrustStore;
  readonly accounting: SqliteAccountingStore;
  readonly checkpoints: SqliteCheckpointStore;
  /** The database itself, for tests that damage it on purpose. */
  readonly db: Database;
  readonly clock: ManualClock;
  readonly log: string[];
  readonly live: JournalEntry[];
  /** The drafts of tool calls announced live (never journalled). */
  readonly drafts: ToolCallDraftEvent[];
  /** The types of everything announced, journal entries and drafts, in the order they were. */
  readonly announced: string[];
  readonly settings: ConfSettingsStore;
  /** The person's trust in folders, with `folderTrust: 'ask'`; null when every folder is trusted. */
  readonly folderTrust: FolderTrustStore | null;
  readonly releaseSlow: () => void;
  readonly sessionId: string;
  view(sessionId?: string): SessionView;
  /** Waits until the session's view satisfies the check. */
  until(check: (view: SessionView) => boolean, what?: string): Promise<SessionView>;
  /** Opens the same database again, as after a restart of the app. */
  reopen(): Promise<Harness>;
  /** Stops this harness as a crash would: the database handle closes and nothing more is written; turns are left where they are. */
  crash(): void;
  close(): Promise<void>;
}

export async function createHarness(
  server: ScriptedModelServer,
  options: {
    autonomy?: Autonomy;
    settings?: Partial<Settings>;
    folder?: ReturnType<typeof temporaryFolder>;
    clock?: ManualClock;
    /** The key of Anthropic endpoints (as from ANTHROPIC_API_KEY), for sessions on the server's Anthropic route. */
    anthropicKey?: string;
    /** Tools besides the test tools, recording into the same log. */
    extraTools?: (log: string[]) => Tool[];
    /** Wraps the provider each turn uses: a stream a provider of another shape would send. */
    instrumentProvider?: (provider: ModelProvider) => ModelProvider;
    /** Folders asked about as the app does (the test's folder then runs restricted until decided); every folder trusted unless said. */
    folderTrust?: 'ask';
  } = {},
): Promise<Harness> {
  const folder = options.folder ?? temporaryFolder();
  const clock = options.clock ?? new ManualClock();
  const settings = new ConfSettingsStore(
    new Conf<Record<string, unknown>>({ cwd: folder.path, projectName: 'agent-workbench', defaults: { ...defaultSettings } }),
  );
  if (options.settings) settings.set({ ...settings.get(), ...options.settings });
  const log: string[] = [];
  const live: JournalEntry[] = [];
  const drafts: ToolCallDraftEvent[] = [];
  const announced: string[] = [];
  const { tools, release } = testTools(log);
  const core = await createCore({
    dataDir: folder.path,
    settings,
    secrets: new EncryptedFileSecretStore(join(folder.path, 'secrets.json'), memoryKeyCipher()),
    clock,
    // Deadlines follow the test's clock alone: time moves when the test moves it.
    monotonic: () => clock.now(),
    retryPolicy: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 },
    idleTimeoutMs: 5_000,
    frameMs: 5,
    tools: [...tools, ...(options.extraTools?.(log) ?? [])],
    folderTrust: options.folderTrust ?? 'trust_all',
    // The workspace is the data folder here; these tests do not save files for time travel.
    fileHistory: false,
    ...(options.anthropicKey === undefined ? {} : { environmentAnthropicKey: options.anthropicKey }),
    ...(options.instrumentProvider ? { instrumentProvider: options.instrumentProvider } : {}),
    listener: {
      onEntries: (_id, entries) => {
        live.push(...entries);
        announced.push(...entries.map((entry) => entry.event.type));
      },
      onDrafts: (_id, events) => {
        drafts.push(...events);
        announced.push(...events.map((event) => event.type));
      },
      onSessionChanged: () => undefined,
    },
  });
  const { store, trust, accounting, checkpoints, db, runtime, providers } = core;
  const endpoint = providers.list()[0] ?? providers.save({ kind: 'openai-compatible', name: 'Scripted', baseUrl: server.openaiBaseUrl });
  const sessionId = 's1';
  if (!store.get(sessionId)) {
    store.create({
      id: sessionId,
      title: 'Test',
      workspacePath: folder.path,
      model: { providerId: endpoint.id, model: 'scripted-model' },
      autonomy: options.autonomy ?? 'L1',
      createdAt: clock.now(),
    });
  }
  const view = (id = sessionId): SessionView => reduceSessionView(emptySessionView, store.journal(id));
  const harness: Harness = {
    runtime,
    store,
    trust,
    accounting,
    checkpoints,
    db,
    clock,
    log,
    live,
    drafts,
    announced,
    settings,
    folderTrust: core.folderTrust,
    releaseSlow: release,
    sessionId,
    view,
    until: async (check, what = 'the expected state') => {
      const started = Date.now();
      for (;;) {
        const current = view();
        if (check(current)) return current;
        if (Date.now() - started > 5_000) throw new Error(`Timed out waiting for ${what}; status ${current.status}`);
        await new Promise((resolve) => setTimeout(resolve, 3));
      }
    },
    reopen: () =>
      createHarness(server, {
        folder,
        clock,
        ...(options.anthropicKey === undefined ? {} : { anthropicKey: options.anthropicKey }),
        ...(options.extraTools ? { extraTools: options.extraTools } : {}),
        ...(options.folderTrust ? { folderTrust: options.folderTrust } : {}),
      }),
    // Writes the abandoned turns still try fail on the closed handle, as they would in a dead process.
    crash: () => db.close(),
    close: async () => {
      if (!db.open) return;
      await core.close();
    },
  };
  return harness;
}

/**
 * Registers the usual hooks: one scripted server per file, reset before each test, and a fresh
 * harness per test (unless `perTest` is false, for tests that make their own), closed after it.
 */
export function useHarness(bind: {
  server: (server: ScriptedModelServer) => void;
  harness?: (harness: Harness) => void;
  /** How each test's harness is made. */
  options?: Parameters<typeof createHarness>[1];
}): void {
  let server: ScriptedModelServer | null = null;
  let current: Harness | null = null;
  beforeAll(async () => {
    server = await ScriptedModelServer.start();
    bind.server(server);
  });
  afterAll(async () => server?.close());
  beforeEach(async () => {
    server?.reset();
    if (bind.harness && server) {
      current = await createHarness(server, bind.options);
      bind.harness(current);
    }
  });
  afterEach(async () => {
    await current?.close();
    current = null;
  });
}
