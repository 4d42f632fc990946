/*
 * The models on this computer that the built-in runtime can load, and the machine they run on.
 */

import { z } from 'zod';
import { limits } from './domain';

export { localEndpointAddress } from './domain';

/** The name the built-in endpoint is shown by. */
export const localEndpointName = 'This computer';

/** Where a model on disk came from. */
export const localModelSourceSchema = z.enum(['downloaded', 'file', 'ollama', 'lm-studio']);
export type LocalModelSource = z.infer<typeof localModelSourceSchema>;

/** A GGUF model on this computer that the built-in runtime can load. */
export const localModelSchema = z.object({
  /** Stable and unique in the library; what a session's model choice names. */
  id: z.string().min(1).max(limits.modelNameLength),
  /** For people: "Qwen3 4B Instruct (Q4_K_M)". */
  name: z.string().min(1).max(limits.nameLength),
  /** The GGUF file's absolute path. */
  path: z.string().min(1).max(limits.pathLength),
  sizeBytes: z.number().int().nonnegative(),
  source: localModelSourceSchema,
  /** `general.architecture` from the file's header: "llama", "qwen3", … */
  architecture: z.string().max(100),
  /** The window the model was trained for (`<arch>.context_length`), when the header says. */
  trainedContext: z.number().int().positive().nullable(),
  addedAt: z.number().int(),
});
export type LocalModel = z.infer<typeof localModelSchema>;

/** What the runtime found about the machine it runs models on. */
export const machineInfoSchema = z.object({
  totalMemoryBytes: z.number().int().nonnegative(),
  freeMemoryBytes: z.number().int().nonnegative(),
  /** `metal`, `cuda`, `vulkan`, or null for the CPU alone. */
  gpu: z.enum(['metal', 'cuda', 'vulkan']).nullable(),
  /** The GPU's memory, when there is a GPU and it reports it. */
  gpuMemoryBytes: z.number().int().nonnegative().nullable(),
  cpuCores: z.number().int().positive(),
});
export type MachineInfo = z.infer<typeof machineInfoSchema>;

/** The models the built-in runtime can load, as the model library keeps them. */
export interface LocalModels {
  list(): readonly LocalModel[];
  get(id: string): LocalModel | null;
}
