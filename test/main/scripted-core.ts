import { afterAll, beforeAll } from 'vitest';
import type { Tool } from '../../src/main/agent/ports/tools';
import type { WorkbenchCore } from '../../src/main/core/workbench-core';
import type { CommandShell } from '../../src/main/tools/command-shell';
import { temporaryFolder } from '../helpers';
import type { LoopbackTransport } from '../host/loopback-transport';
import { createCoreWithScriptedModel } from '../host/node-core';
import { testDatabaseKeys } from '../host/test-keychain';
import { ScriptedModelServer, type ScriptedModelServerOptions } from '../scripted-model-server';

export interface ScriptedCore {
  readonly folder: ReturnType<typeof temporaryFolder>;
  readonly server: ScriptedModelServer;
  readonly core: WorkbenchCore;
  readonly transport: LoopbackTransport;
  /** A session made before the tests, when asked for: `''` otherwise. */
  readonly sessionId: string;
}

export interface ScriptedCoreOptions {
  readonly frameMs?: number;
  /** The data folder, given the temporary folder; the folder itself by default. */
  readonly dataDir?: (folder: string) => string;
  readonly tools?: (dataDir: string) => readonly Tool[];
  /** Builds the app's own tools (files, symbols, the shell) too, with the code map they share. */
  readonly builtinTools?: boolean;
  /** The environment language servers start with: the app's own when absent. */
  readonly languageServerEnvironment?: NodeJS.ProcessEnv;
  /** The environment git runs with: the app's own when absent (a PATH without git takes it away). */
  readonly gitEnvironment?: NodeJS.ProcessEnv;
  /** The shell commands run in: the one found on this machine when absent (an unavailable one takes run_command away). */
  readonly commandShell?: CommandShell;
  /** Runs on the temporary folder before the core starts (files a test needs). */
  readonly prepare?: (folder: string) => void;
  /** Creates a session first: `workspace` uses the temporary folder as its workspace. */
  readonly session?: 'plain' | 'workspace';
  /** How the scripted server behaves (a text-only model, say). */
  readonly server?: ScriptedModelServerOptions;
  /** Encrypts the database at rest, with a key kept in the data folder as the tests' keychain keeps it. */
  readonly encrypted?: boolean;
}

/**
 * Registers the usual hooks of an integration test file: a temporary folder, the scripted model
 * server, and the core on a loopback transport with that server as its default model; all closed
 * after the file. `bind` receives them once they are up.
 */
export function useScriptedCore(options: ScriptedCoreOptions, bind: (started: ScriptedCore) => void): void {
  let started: ScriptedCore | null = null;
  beforeAll(async () => {
    const folder = temporaryFolder();
    options.prepare?.(folder.path);
    const server = await ScriptedModelServer.start(options.server);
    const dataDir = options.dataDir?.(folder.path) ?? folder.path;
    const { core, transport } = await createCoreWithScriptedModel({
      dataDir,
      openaiBaseUrl: server.openaiBaseUrl,
      ...(options.frameMs === undefined ? {} : { frameMs: options.frameMs }),
      ...(options.tools ? { tools: options.tools(dataDir) } : {}),
      ...(options.builtinTools ? { builtinTools: true } : {}),
      ...(options.languageServerEnvironment ? { languageServerEnvironment: options.languageServerEnvironment } : {}),
      ...(options.gitEnvironment ? { gitEnvironment: options.gitEnvironment } : {}),
      ...(options.commandShell ? { commandShell: options.commandShell } : {}),
      ...(options.encrypted ? { databaseKeys: testDatabaseKeys(dataDir) } : {}),
    });
    let sessionId = '';
    if (options.session) {
      const created = await transport.invoke('session:create', options.session === 'workspace' ? { workspacePath: folder.path } : {});
      if (!created.ok) throw new Error(created.error.message);
      sessionId = (created.value as { id: string }).id;
    }
    started = { folder, server, core, transport, sessionId };
    bind(started);
  });
  afterAll(async () => {
    await started?.core.close();
    await started?.server.close();
    started?.folder.remove();
  });
}

/** What a channel answers over the loopback transport; a refusal throws, naming the channel. */
export async function answer<T>(transport: LoopbackTransport, channel: string, payload: unknown): Promise<T> {
  const result = await transport.invoke(channel, payload);
  if (!result.ok) throw new Error(`${channel}: ${result.error.message}`);
  return result.value as T;
}
