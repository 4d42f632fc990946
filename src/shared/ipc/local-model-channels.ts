/*
 * The IPC channels and events of models on this computer: the library, the recommended downloads, other apps' models,
 * and downloads.
 */

import { z } from 'zod';
import { limits } from '../domain';
import { localModelSchema, machineInfoSchema } from '../local-models';
import { catalogueChoiceSchema, downloadViewSchema, modelCandidateSchema } from '../model-catalogue';

const noInput = z.object({}).strict();
const pathSchema = z
  .string()
  .min(1)
  .max(limits.pathLength)
  .refine((value) => !value.includes('\0'), 'must not contain NUL bytes')
  // Main resolves nothing against its own working folder: a path comes from a file dialog, whole.
  .refine((value) => value.startsWith('/') || /^[A-Za-z]:[\\/]/.test(value) || value.startsWith('\\\\'), 'must be an absolute path');
const downloadRef = z.object({ id: z.string().min(1).max(100) }).strict();

/**
 * The channels of models on this computer (the built-in runtime's library), spread into the contract (`channels`):
 * the library, the recommended downloads matched to this machine, the models of Ollama and LM Studio that can be added,
 * and downloads.
 */
export const localModelChannels = {
  'local-model:list': { input: noInput, output: z.array(localModelSchema) },
  /** What this machine has (memory, GPU), as the runtime sees it. */
  'local-model:machine': { input: noInput, output: machineInfoSchema },
  /** The recommended models, each with the memory it needs, whether it fits here, and the one recommended. */
  'local-model:catalogue': { input: noInput, output: z.object({ machine: machineInfoSchema, choices: z.array(catalogueChoiceSchema) }) },
  /** Models of Ollama and LM Studio on this computer, which can be added without a download. */
  'local-model:candidates': { input: noInput, output: z.array(modelCandidateSchema) },
  /** Asks the person for a GGUF file (a native dialog); null when they cancel. */
  'local-model:pickFile': { input: noInput, output: z.object({ path: z.string().nullable() }) },
  /** Adds a GGUF file where it is (not copied), after checking its header and that it fits in memory. */
  'local-model:addFile': { input: z.object({ path: pathSchema }).strict(), output: localModelSchema },
  /** Adds a model of Ollama or LM Studio found by `local-model:candidates`. */
  'local-model:addCandidate': { input: z.object({ path: pathSchema }).strict(), output: localModelSchema },
  /** Removes a model: a download is deleted from the models folder, any other file is only forgotten. */
  'local-model:remove': {
    input: z.object({ id: z.string().min(1).max(limits.modelNameLength) }).strict(),
    output: z.object({ removed: z.literal(true), deletedFile: z.boolean() }),
  },
  'local-model:downloads': { input: noInput, output: z.array(downloadViewSchema) },
  /** Starts downloading a recommended model (by its catalogue id), or resumes it. */
  'local-model:download': { input: downloadRef, output: downloadViewSchema },
  'local-model:pause': { input: downloadRef, output: downloadViewSchema },
  'local-model:resume': { input: downloadRef, output: downloadViewSchema },
  /** Stops a download and removes what arrived. */
  'local-model:cancel': { input: downloadRef, output: z.object({ cancelled: z.literal(true) }) },
} as const satisfies Record<string, { input: z.ZodType; output: z.ZodType }>;

/** Events of models on this computer, spread into the contract (`events`). */
export const localModelEvents = {
  /** A download changed: its state, or its progress (at most about four times a second). */
  'local-model:progress': z.object({ download: downloadViewSchema }),
} as const satisfies Record<string, z.ZodType>;
