/*
 * The models the app offers to download and whether each fits this machine's memory, and downloads and other apps'
 * models as the window shows them.
 */

import { z } from 'zod';
import { limits } from './domain';
import { errorInfoSchema } from './errors';
import type { MachineInfo } from './local-models';

/** A model the app offers to download: a GGUF file on Hugging Face, with what it needs to run. */
export const catalogueEntrySchema = z.object({
  id: z.string().min(1).max(100),
  /** For people: "Qwen3 4B (Q4_K_M)". */
  name: z.string().min(1).max(limits.nameLength),
  /** One line on what it is good at. */
  summary: z.string().max(300),
  /** Where the file is fetched from (a Hugging Face `resolve` URL). */
  url: z.string().url().max(limits.urlLength),
  /** The name the file is kept under in the models folder. */
  fileName: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[\w.-]+\.gguf$/, 'a plain file name ending in .gguf'),
  /** The file's size as published; the server's figure wins when it differs. */
  sizeBytes: z.number().int().positive(),
  /** The file's SHA-256 when it is known here; else the server's (Hugging Face's `X-Linked-ETag`), else none. */
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable(),
  /** The window the model was trained for. */
  trainedContext: z.number().int().positive(),
  /** The window the app runs it with: room for an agent's tools and files, within what a small machine holds. */
  runContext: z.number().int().positive(),
  /** The cache of attention keys and values one token takes (layers × KV heads × head size × 2 × 2 bytes at f16). */
  kvBytesPerToken: z.number().int().positive(),
});
export type CatalogueEntry = z.infer<typeof catalogueEntrySchema>;

/** How a model sits on this machine: runs with room to spare, runs with little left for anything else, or does not. */
export const modelFitSchema = z.enum(['fits', 'tight', 'too_large']);
export type ModelFit = z.infer<typeof modelFitSchema>;

export const catalogueChoiceSchema = catalogueEntrySchema.extend({
  /** Memory it takes at its run window: the weights, the KV cache and the runtime's own. */
  memoryBytes: z.number().int().positive(),
  fit: modelFitSchema,
  recommended: z.boolean(),
  /** Already in the library (downloaded before). */
  downloaded: z.boolean(),
});
export type CatalogueChoice = z.infer<typeof catalogueChoiceSchema>;

/** What the runtime takes besides weights and cache (compute buffers, the process), a rough constant. */
export const runtimeOverheadBytes = 500_000_000;

/** Memory a model needs: its file (mapped), the KV cache at its window, and the runtime's own. */
export function memoryNeeded(sizeBytes: number, kvBytesPerToken: number, window: number): number {
  return sizeBytes + kvBytesPerToken * window + runtimeOverheadBytes;
}

/**
 * Whether a model needing `memoryBytes` runs here. A GPU with its own memory (CUDA, Vulkan) that holds the model with a
 * tenth to spare: fits. Otherwise the model shares the computer's memory (Apple's GPUs do too) with the system and the
 * other apps: within half of it fits, within three quarters is tight, beyond is too large.
 */
export function fitOn(machine: MachineInfo, memoryBytes: number): ModelFit {
  const dedicated = machine.gpu !== null && machine.gpu !== 'metal' ? machine.gpuMemoryBytes : null;
  if (dedicated !== null && memoryBytes * 1.1 <= dedicated) return 'fits';
  if (memoryBytes <= machine.totalMemoryBytes * 0.5) return 'fits';
  if (memoryBytes <= machine.totalMemoryBytes * 0.75) return 'tight';
  return 'too_large';
}

/**
 * Why a model too large for this machine (`fitOn`) cannot run here, in words after its name: "needs about 20 GB of
 * memory, and this computer has 16.0 GB".
 */
export function tooLargeReason(memoryBytes: number, machine: MachineInfo): string {
  const needs = `needs about ${sizeWords(memoryBytes)} of memory`;
  return memoryBytes > machine.totalMemoryBytes
    ? `${needs}, and this computer has ${sizeWords(machine.totalMemoryBytes)}`
    : `${needs}, more than this computer’s ${sizeWords(machine.totalMemoryBytes)} can spare beside the system and other apps`;
}

/**
 * The catalogue as offered to this machine: each entry with its memory and fit, and the one recommended: the first of
 * the list (best first) that fits, else the smallest that is tight, else none.
 */
export function chooseFor(
  machine: MachineInfo,
  catalogue: readonly CatalogueEntry[],
  downloaded: (entry: CatalogueEntry) => boolean,
): CatalogueChoice[] {
  const choices = catalogue.map((entry) => {
    const memoryBytes = memoryNeeded(entry.sizeBytes, entry.kvBytesPerToken, entry.runContext);
    return { ...entry, memoryBytes, fit: fitOn(machine, memoryBytes), recommended: false, downloaded: downloaded(entry) };
  });
  const pick =
    choices.find((choice) => choice.fit === 'fits') ??
    choices.filter((choice) => choice.fit === 'tight').sort((a, b) => a.memoryBytes - b.memoryBytes)[0];
  return choices.map((choice) => (choice === pick ? { ...choice, recommended: true } : choice));
}

const kv = (layers: number, kvHeads: number, headSize: number): number => layers * kvHeads * headSize * 2 * 2;

/**
 * Small models good at agent work (tool calls, following a plan), best first, as Q4_K_M GGUF files of bartowski's
 * llama.cpp quantizations on Hugging Face. Sizes are those the repositories publish (decimal GB, rounded); the layer and
 * head counts that size the KV cache are the models' own configurations. No checksum is written here: Hugging Face
 * sends each file's SHA-256 with the download (`X-Linked-ETag`), and that is what is checked.
 */
export const defaultCatalogue: readonly CatalogueEntry[] = [
  {
    id: 'qwen3-8b',
    name: 'Qwen3 8B (Q4_K_M)',
    summary: 'The strongest of these at tool calls and multi-step work; wants a 16 GB machine.',
    url: 'https://huggingface.co/bartowski/Qwen_Qwen3-8B-GGUF/resolve/main/Qwen_Qwen3-8B-Q4_K_M.gguf',
    fileName: 'Qwen_Qwen3-8B-Q4_K_M.gguf',
    sizeBytes: 5_030_000_000,
    sha256: null,
    trainedContext: 40_960,
    runContext: 8_192,
    kvBytesPerToken: kv(36, 8, 128),
  },
  {
    id: 'qwen3-4b',
    name: 'Qwen3 4B (Q4_K_M)',
    summary: 'Good tool calls at half the size: the pick for 8 to 16 GB.',
    url: 'https://huggingface.co/bartowski/Qwen_Qwen3-4B-GGUF/resolve/main/Qwen_Qwen3-4B-Q4_K_M.gguf',
    fileName: 'Qwen_Qwen3-4B-Q4_K_M.gguf',
    sizeBytes: 2_500_000_000,
    sha256: null,
    trainedContext: 40_960,
    runContext: 8_192,
    kvBytesPerToken: kv(36, 8, 128),
  },
  {
    id: 'qwen2.5-coder-7b',
    name: 'Qwen2.5 Coder 7B Instruct (Q4_K_M)',
    summary: 'Written for code; calls tools less reliably than Qwen3.',
    url: 'https://huggingface.co/bartowski/Qwen2.5-Coder-7B-Instruct-GGUF/resolve/main/Qwen2.5-Coder-7B-Instruct-Q4_K_M.gguf',
    fileName: 'Qwen2.5-Coder-7B-Instruct-Q4_K_M.gguf',
    sizeBytes: 4_680_000_000,
    sha256: null,
    trainedContext: 32_768,
    runContext: 8_192,
    kvBytesPerToken: kv(28, 4, 128),
  },
  {
    id: 'llama-3.2-3b',
    name: 'Llama 3.2 3B Instruct (Q4_K_M)',
    summary: 'Small and quick, with native tool calls; simpler tasks.',
    url: 'https://huggingface.co/bartowski/Llama-3.2-3B-Instruct-GGUF/resolve/main/Llama-3.2-3B-Instruct-Q4_K_M.gguf',
    fileName: 'Llama-3.2-3B-Instruct-Q4_K_M.gguf',
    sizeBytes: 2_020_000_000,
    sha256: null,
    trainedContext: 131_072,
    runContext: 8_192,
    kvBytesPerToken: kv(28, 8, 128),
  },
  {
    id: 'qwen3-1.7b',
    name: 'Qwen3 1.7B (Q4_K_M)',
    summary: 'For a machine with little memory: short tasks, a smaller window.',
    url: 'https://huggingface.co/bartowski/Qwen_Qwen3-1.7B-GGUF/resolve/main/Qwen_Qwen3-1.7B-Q4_K_M.gguf',
    fileName: 'Qwen_Qwen3-1.7B-Q4_K_M.gguf',
    sizeBytes: 1_280_000_000,
    sha256: null,
    trainedContext: 40_960,
    runContext: 8_192,
    kvBytesPerToken: kv(28, 8, 128),
  },
];

/** Where a download is. `interrupted`: stopped by the network or the disk, resumable; `failed`: nothing kept. */
export const downloadStateSchema = z.enum(['downloading', 'paused', 'interrupted', 'verifying', 'done', 'failed']);
export type DownloadState = z.infer<typeof downloadStateSchema>;

/** A download as the window shows it. */
export const downloadViewSchema = z.object({
  /** The catalogue entry's id. */
  id: z.string().min(1).max(100),
  name: z.string(),
  fileName: z.string(),
  state: downloadStateSchema,
  receivedBytes: z.number().int().nonnegative(),
  /** Null until the server says. */
  totalBytes: z.number().int().positive().nullable(),
  /** Over the last few seconds; null when not downloading. */
  bytesPerSecond: z.number().nonnegative().nullable(),
  secondsLeft: z.number().nonnegative().nullable(),
  /** What the file is checked against at the end: the catalogue's checksum, the server's, or none. */
  checksum: z.enum(['catalogue', 'server', 'none']),
  error: errorInfoSchema.nullable(),
  /** The model in the library once done. */
  modelId: z.string().nullable(),
});
export type DownloadView = z.infer<typeof downloadViewSchema>;

/** A GGUF model of another app found on this computer, which can be added without a download. */
export const modelCandidateSchema = z.object({
  path: z.string().min(1).max(limits.pathLength),
  name: z.string(),
  source: z.enum(['ollama', 'lm-studio']),
  sizeBytes: z.number().int().nonnegative(),
  /** Already in the library. */
  added: z.boolean(),
});
export type ModelCandidate = z.infer<typeof modelCandidateSchema>;

const units = ['bytes', 'KB', 'MB', 'GB', 'TB'] as const;

/** A size for people, in decimal units as disks are sold: "2.5 GB". */
export function sizeWords(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return unit === 0 ? `${bytes} bytes` : `${value >= 100 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}
