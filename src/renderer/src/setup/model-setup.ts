/*
 * The model setup's words and choices: how to start each usual local server, which models to list, how long to look
 * again, the ready line.
 */

import type { ModelInfo } from '../../../shared/domain';
import type { DiscoveryResult, MissedEndpoint } from '../../../shared/ipc/contract';

/** A usual local server and how to get it running. Named as discovery names it. */
export interface ServerGuide {
  readonly name: string;
  readonly port: number;
  readonly steps: readonly string[];
}

/** How to get each usual local server running, for the ones that did not answer. */
export const serverGuides: readonly ServerGuide[] = [
  {
    name: 'Ollama',
    port: 11434,
    steps: ['Install it from ollama.com.', 'Start it: open the Ollama app, or run `ollama serve`.', 'Get a model: `ollama pull qwen3:8b`.'],
  },
  {
    name: 'LM Studio',
    port: 1234,
    steps: [
      'Install it from lmstudio.ai and download a model in it.',
      'Start its server: Developer tab → Start Server, or `lms server start`.',
    ],
  },
  {
    name: 'llama.cpp server',
    port: 8080,
    steps: [
      'Install llama.cpp (its releases, or `brew install llama.cpp`).',
      'Start it: `llama-server -m <model.gguf> --port 8080 --jinja`.',
    ],
  },
  {
    name: 'vLLM',
    port: 8000,
    steps: ['Install it: `pip install vllm`.', 'Start it: `vllm serve <model> --enable-auto-tool-choice --tool-call-parser hermes`.'],
  },
];

/** The model the person picked in the setup, with its server's name for the words that follow. */
export interface ChosenModel {
  readonly providerId: string;
  readonly model: string;
  readonly serverName: string;
}

/** How many of a server's models are listed before "Show all". */
export const modelsShownAtFirst = 6;

/**
 * How long "Check again" gives each server after one was slow: long enough for a server that is loading a model to
 * answer its model list, short enough that the person is not left waiting on a server that hangs.
 */
export const secondTryTimeoutMs = 5_000;

/** The models listed now: all of them, or the first few when the list is long and not opened. */
export function modelsShown(models: readonly ModelInfo[], showAll: boolean): { shown: readonly ModelInfo[]; hidden: number } {
  if (showAll || models.length <= modelsShownAtFirst + 1) return { shown: models, hidden: 0 };
  return { shown: models.slice(0, modelsShownAtFirst), hidden: models.length - modelsShownAtFirst };
}

/**
 * What to say about the servers that gave no model list: a guide to install and start each one that is not running
 * (or was not probed), and apart from those, the ones that are there but were slow or failed, with why in words.
 */
export function unansweredServers(result: DiscoveryResult): {
  readonly guides: readonly ServerGuide[];
  readonly troubled: readonly MissedEndpoint[];
} {
  const troubled = result.missed.filter((missed) => missed.reason !== 'not_running');
  const guides = serverGuides.filter(
    (guide) => !result.found.some((found) => found.name === guide.name) && !troubled.some((missed) => missed.name === guide.name),
  );
  return { guides, troubled };
}

/** The timeout for the next look: longer after a server was slow, the usual one otherwise. */
export function nextLookTimeout(result: DiscoveryResult | null): number | undefined {
  return result?.missed.some((missed) => missed.reason === 'slow') ? Math.max(secondTryTimeoutMs, result.timeoutMs * 2) : undefined;
}

/** What the setup ends on: the model, its server and the folder, said in one line. */
export function readyLine(model: string, serverName: string, folder: string | null): string {
  if (folder === null)
    return `Ready: ${model} on ${serverName}, with no folder: the agent can talk but cannot read or run anything until you pick one.`;
  return `Ready: ${model} on ${serverName}, in ${folder}.`;
}

/** A model's size of window, when the server says it, for the list. */
export function windowWords(model: ModelInfo): string | null {
  if (model.contextLength === undefined) return null;
  return model.contextLength >= 1024 ? `${Math.round(model.contextLength / 1024)}k window` : `${model.contextLength} window`;
}
