/*
 * Finds the models Ollama and LM Studio keep on this computer, so they can be added without a download.
 */

import { readFileSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';

/** The folders where other apps keep their models, looked in for models that can be added without a download. */
export interface ModelFolders {
  /** Ollama's models folders (each holding `manifests/` and `blobs/`). */
  readonly ollama: readonly string[];
  /** LM Studio's models folders (each holding `<publisher>/<repository>/<file>.gguf`). */
  readonly lmStudio: readonly string[];
}

/**
 * Where Ollama and LM Studio keep models: `$OLLAMA_MODELS`, else `~/.ollama/models` (Ollama's envconfig.Models; the
 * Linux service keeps its own under /usr/share/ollama/.ollama/models); LM Studio's `~/.lmstudio/models` (its docs,
 * "Import Models") and the older `~/.cache/lm-studio/models`.
 */
export function defaultModelFolders(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): ModelFolders {
  const ollama = env['OLLAMA_MODELS'] ? [env['OLLAMA_MODELS']] : [join(home, '.ollama', 'models'), '/usr/share/ollama/.ollama/models'];
  return { ollama, lmStudio: [join(home, '.lmstudio', 'models'), join(home, '.cache', 'lm-studio', 'models')] };
}

/** A GGUF model file of another app. */
export interface FoundModel {
  readonly path: string;
  readonly name: string;
  readonly source: 'ollama' | 'lm-studio';
  readonly sizeBytes: number;
}

/** How many models a look returns at most, and how large a manifest may be. */
const foundLimit = 500;
const manifestBytes = 1_000_000;

/**
 * An Ollama manifest (see ollama's server/internal/manifest/manifest.go): layers by media type; the weights are the one
 * of `application/vnd.ollama.image.model`, kept as `blobs/sha256-<hex>`.
 */
const manifestSchema = z.object({
  layers: z
    .array(z.object({ mediaType: z.string(), digest: z.string(), size: z.number().int().nonnegative().optional() }).passthrough())
    .max(1_000),
});
const modelLayerType = 'application/vnd.ollama.image.model';
const digestPattern = /^sha256[:-]([0-9a-f]{64})$/;

const folders = (path: string): string[] => {
  try {
    return readdirSync(path, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch {
    return [];
  }
};
const files = (path: string): string[] => {
  try {
    return readdirSync(path, { withFileTypes: true })
      .filter((entry) => entry.isFile() || entry.isSymbolicLink())
      .map((entry) => entry.name);
  } catch {
    return [];
  }
};
const sizeOf = (path: string): number | null => {
  try {
    const stat = statSync(path);
    return stat.isFile() ? stat.size : null;
  } catch {
    return null;
  }
};

/** Ollama's models: `manifests/<host>/<namespace>/<model>/<tag>`, each pointing at its weights blob. */
export function findOllamaModels(root: string): FoundModel[] {
  const found: FoundModel[] = [];
  const manifests = join(root, 'manifests');
  for (const host of folders(manifests))
    for (const namespace of folders(join(manifests, host)))
      for (const model of folders(join(manifests, host, namespace)))
        for (const tag of files(join(manifests, host, namespace, model))) {
          if (found.length >= foundLimit) return found;
          const path = join(manifests, host, namespace, model, tag);
          const size = sizeOf(path);
          if (size === null || size > manifestBytes) continue;
          let manifest: z.infer<typeof manifestSchema>;
          try {
            const parsed = manifestSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
            if (!parsed.success) continue;
            manifest = parsed.data;
          } catch {
            continue;
          }
          const digest = manifest.layers.find((layer) => layer.mediaType === modelLayerType)?.digest.match(digestPattern)?.[1];
          if (!digest) continue;
          const blob = join(root, 'blobs', `sha256-${digest}`);
          const blobSize = sizeOf(blob);
          if (blobSize === null) continue;
          const short =
            host === 'registry.ollama.ai' ? (namespace === 'library' ? model : `${namespace}/${model}`) : `${host}/${namespace}/${model}`;
          found.push({ path: blob, name: `${short}:${tag}`, source: 'ollama', sizeBytes: blobSize });
        }
  return found;
}

/** LM Studio's models: `<publisher>/<repository>/*.gguf`, leaving out vision projectors (`mmproj-*`). */
export function findLmStudioModels(root: string): FoundModel[] {
  const found: FoundModel[] = [];
  for (const publisher of folders(root))
    for (const repository of folders(join(root, publisher)))
      for (const file of files(join(root, publisher, repository))) {
        if (found.length >= foundLimit) return found;
        if (!file.toLowerCase().endsWith('.gguf') || file.toLowerCase().startsWith('mmproj')) continue;
        const path = join(root, publisher, repository, file);
        const size = sizeOf(path);
        if (size !== null) found.push({ path, name: file.replace(/\.gguf$/i, ''), source: 'lm-studio', sizeBytes: size });
      }
  return found;
}

/** Every model of Ollama and LM Studio found in the folders given, without duplicates. */
export function findModels(places: ModelFolders): FoundModel[] {
  const all = [...places.ollama.flatMap(findOllamaModels), ...places.lmStudio.flatMap(findLmStudioModels)];
  const seen = new Set<string>();
  return all.filter((model) => !seen.has(model.path) && seen.add(model.path)).slice(0, foundLimit);
}
