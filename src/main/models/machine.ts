/*
 * What this machine has, as Node can tell: memory, processor cores and free disk space.
 */

import { statfs } from 'node:fs/promises';
import { availableParallelism, freemem, totalmem } from 'node:os';
import type { MachineInfo } from '../../shared/local-models';

/** What this machine has, as Node alone can tell: memory and cores, no GPU (the runtime, when there, knows better). */
export function nodeMachineInfo(): MachineInfo {
  return {
    totalMemoryBytes: totalmem(),
    freeMemoryBytes: freemem(),
    gpu: null,
    gpuMemoryBytes: null,
    cpuCores: Math.max(1, availableParallelism()),
  };
}

/** Bytes free for this user on the disk that holds `folder`. */
export async function freeDiskBytes(folder: string): Promise<number> {
  const stats = await statfs(folder);
  return stats.bavail * stats.bsize;
}
