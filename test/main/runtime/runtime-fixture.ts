import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LocalModel, LocalModels } from '../../../src/shared/local-models';
import type { ModelStreamEvent } from '../../../src/main/agent/ports/model-provider';
import { LocalRuntimeProvider, type LocalRuntimeOptions } from '../../../src/main/runtime/local-runtime-provider';
import type { RuntimeChannel, RuntimeLauncher } from '../../../src/main/runtime/runtime-protocol';
import { sourceRuntime } from '../../../src/main/runtime/runtime-process';
import { writeTinyGguf, type TinyModelOptions } from '../../fixtures/tiny-gguf';

/**
 * The runtime's process as the tests start it: the TypeScript entry, through tsx, on the CPU with one thread. Test files
 * run side by side on few cores, and llama.cpp's threads wait for each other by spinning: two of them on a busy machine
 * take hundreds of milliseconds a token where one takes half of one.
 */
export const testRuntime = sourceRuntime({ WORKBENCH_RUNTIME_GPU: 'off', WORKBENCH_RUNTIME_THREADS: '1' });

/** The test runtime with more of its environment: `WORKBENCH_RUNTIME_SEQUENCES`, say. */
export const testRuntimeWith = (env: NodeJS.ProcessEnv): RuntimeLauncher =>
  sourceRuntime({ WORKBENCH_RUNTIME_GPU: 'off', WORKBENCH_RUNTIME_THREADS: '1', ...env });

/** A folder of tiny models and a library listing them. */
export class TinyModels implements LocalModels {
  readonly folder = mkdtempSync(join(tmpdir(), 'tiny-models-'));
  private readonly models = new Map<string, LocalModel>();

  add(id: string, options: TinyModelOptions): LocalModel {
    const path = join(this.folder, `${id}.gguf`);
    writeTinyGguf(path, options);
    return this.addFile(id, path, options.contextLength ?? 4096);
  }

  addFile(id: string, path: string, trainedContext: number | null = 4096): LocalModel {
    const model: LocalModel = {
      id,
      name: id,
      path,
      sizeBytes: statSync(path).size,
      source: 'file',
      architecture: 'llama',
      trainedContext,
      addedAt: Date.now(),
    };
    this.models.set(id, model);
    return model;
  }

  list(): LocalModel[] {
    return [...this.models.values()];
  }

  get(id: string): LocalModel | null {
    return this.models.get(id) ?? null;
  }

  remove(): void {
    rmSync(this.folder, { recursive: true, force: true });
  }
}

/** A provider on the test runtime that keeps the channels it started, so a test can end the process. */
export function runtimeProvider(
  models: LocalModels,
  options: Partial<LocalRuntimeOptions> = {},
  launch: RuntimeLauncher = testRuntime,
): { provider: LocalRuntimeProvider; channels: RuntimeChannel[] } {
  const channels: RuntimeChannel[] = [];
  const provider = new LocalRuntimeProvider({
    models,
    launch: () => {
      const channel = launch();
      channels.push(channel);
      return channel;
    },
    defaultTemperature: 0,
    ...options,
  });
  return { provider, channels };
}

export async function collect(stream: AsyncIterable<ModelStreamEvent>): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

export const textOf = (events: readonly ModelStreamEvent[]): string =>
  events.map((event) => (event.type === 'text_delta' ? event.text : '')).join('');

export const reasoningOf = (events: readonly ModelStreamEvent[]): string =>
  events.map((event) => (event.type === 'reasoning_delta' ? event.text : '')).join('');
