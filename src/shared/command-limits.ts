/*
 * The resources one of the agent's commands may use, as the settings hold them.
 */

import { z } from 'zod';

/** The bounds of each command limit, for the schema and for the settings form. */
export const commandLimitBounds = {
  memoryMb: { min: 256, max: 1_048_576 },
  processes: { min: 32, max: 65_536 },
  cpuSeconds: { min: 60, max: 7 * 24 * 3600 },
  outputMb: { min: 1, max: 10_240 },
} as const;

const limitField = (name: keyof typeof commandLimitBounds) =>
  z.number().int().min(commandLimitBounds[name].min).max(commandLimitBounds[name].max);

/** All four limits, as the settings form sends them. */
export const commandLimitsChangeSchema = z
  .object({
    memoryMb: limitField('memoryMb'),
    processes: limitField('processes'),
    cpuSeconds: limitField('cpuSeconds'),
    outputMb: limitField('outputMb'),
  })
  .strict();
export type CommandLimits = z.infer<typeof commandLimitsChangeSchema>;

/**
 * Limits a large build passes. Memory: Node's own heap stops at about 4 GB on a 64-bit machine. Processes: threads count
 * too, and a JVM, a browser or a parallel compiler each run dozens. CPU time is per process but summed over its threads:
 * 4 hours lets one process keep 8 cores busy for the longest run a command may have (30 minutes). Output: far more than a
 * build prints.
 */
export const defaultCommandLimits: CommandLimits = { memoryMb: 4096, processes: 1024, cpuSeconds: 4 * 3600, outputMb: 100 };

/**
 * Resources one of the agent's commands may use. Memory and CPU time are per process (RLIMIT_DATA, RLIMIT_CPU); processes
 * are counted at once, threads included, and only inside the Linux sandbox (its own user namespace), since outside it a
 * per-user limit would count every process of the person's desktop; output is the whole run's. A saved file that lacks a
 * limit gets its default.
 */
export const commandLimitsSchema = z.object({
  memoryMb: limitField('memoryMb').default(defaultCommandLimits.memoryMb),
  processes: limitField('processes').default(defaultCommandLimits.processes),
  cpuSeconds: limitField('cpuSeconds').default(defaultCommandLimits.cpuSeconds),
  outputMb: limitField('outputMb').default(defaultCommandLimits.outputMb),
});
