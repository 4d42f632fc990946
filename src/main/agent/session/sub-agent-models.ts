/*
 * A sub-agent's model, and what its endpoint says of it: the model it runs (its parent's, or another of the same
 * endpoint the brief names), whether the endpoint serves that model, how long its answer may be in its parent's
 * window, and how many sub-agents the model's server answers at once.
 */
import type { ModelChoice, Session } from '../../../shared/domain';
import { CancelledError, NotFoundError, WorkbenchError } from '../../../shared/errors';
import type { SessionJournal } from '../history/session-journal';
import type { SessionStore } from '../ports/stores';
import type { ServerLimit } from './sub-agent-turns';

/** Where a sub-agent's model is read, and what its endpoint is asked (as `SubAgentsOptions` says of each). */
export interface ModelSources {
  readonly store: SessionStore;
  readonly journal: SessionJournal;
  readonly windowOf: (choice: ModelChoice, signal: AbortSignal) => Promise<number>;
  readonly serverConcurrency?: (choice: ModelChoice, signal: AbortSignal) => Promise<number | null>;
  readonly modelsOf?: (choice: ModelChoice, signal: AbortSignal) => Promise<readonly string[]>;
}

/** The share of the parent's window one sub-agent's answer may take, and the characters a token is counted as. */
const answerShare = 1 / 8;
const charsPerToken = 3;

/** The parent's model (its session's, or its running turn's), or another model of the same endpoint the brief names. */
export function modelFor(
  { store, journal }: Pick<ModelSources, 'store' | 'journal'>,
  parent: Session,
  model: string | undefined,
): ModelChoice | null {
  let choice = parent.model;
  const turnId = journal.head(parent.id).openTurn;
  const started = turnId === null ? null : store.findById(parent.id, 'run_started', turnId);
  if (started?.event.type === 'run_started') choice = started.event.model;
  if (!choice) return null;
  return model ? { providerId: choice.providerId, model } : choice;
}

/**
 * Refuses a model the endpoint does not serve, naming those it does, so the model can pick again. An endpoint that
 * cannot list its models now is not taken as a refusal: the sub-agent's first request says what is wrong, if anything.
 */
export async function assertServed({ modelsOf }: Pick<ModelSources, 'modelsOf'>, choice: ModelChoice, signal: AbortSignal): Promise<void> {
  if (!modelsOf) return;
  let served: readonly string[];
  try {
    served = await modelsOf(choice, signal);
  } catch (error) {
    if (signal.aborted) throw new CancelledError();
    if (error instanceof NotFoundError) throw error;
    return;
  }
  // Ollama's "llama3" is "llama3:latest", and an Anthropic alias names a dated model ("…-20250929").
  const meant = (id: string): boolean =>
    id === choice.model ||
    id === `${choice.model}:latest` ||
    (id.startsWith(`${choice.model}-`) && /^-\d{8}$/.test(id.slice(choice.model.length)));
  if (served.length === 0 || served.some(meant)) return;
  const named = served.slice(0, 20).map((id) => `"${id}"`);
  throw new WorkbenchError(
    'invalid_input',
    `The endpoint does not serve a model "${choice.model}". It serves ${named.join(', ')}${served.length > 20 ? ` and ${served.length - 20} more` : ''}; name one of them, or leave the model out to use this session's.`,
  );
}

/**
 * The length of a sub-agent's answer: what the brief asks for, within a share of the parent's window, so that several
 * answers fit a small one (on 4,096 tokens, about 1,500 characters each). Not less than 200, nor when the window
 * cannot be known.
 */
export async function answerBound(
  sources: Pick<ModelSources, 'store' | 'journal' | 'windowOf'>,
  parent: Session,
  asked: number,
  signal: AbortSignal,
): Promise<number> {
  const choice = modelFor(sources, parent, undefined);
  if (!choice) return asked;
  try {
    const window = await sources.windowOf(choice, signal);
    return Math.max(200, Math.min(asked, Math.floor(window * answerShare * charsPerToken)));
  } catch {
    return asked;
  }
}

/** The limit of a model's server on sub-agents at once, when it says (llama-server's slots); none otherwise. */
export async function serverLimit(
  { serverConcurrency }: Pick<ModelSources, 'serverConcurrency'>,
  choice: ModelChoice | null,
  signal: AbortSignal,
): Promise<ServerLimit | null> {
  if (!choice || !serverConcurrency) return null;
  try {
    const cap = await serverConcurrency(choice, signal);
    return cap === null ? null : { key: choice.providerId, cap: Math.max(1, cap) };
  } catch {
    return null;
  }
}
