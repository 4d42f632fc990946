/*
 * Whether a session can send: the model it runs on, whether its endpoint lists that model, and why Send is off when it
 * cannot.
 */

import type { ModelInfo, SessionModel } from '../../../shared/domain';
import type { AppState } from '../store';

/** What a session runs on: its own pick, or the default model for a session that has none. */
export function effectiveModel(state: AppState, sessionId: string): SessionModel | null {
  const session = state.sessions.find((candidate) => candidate.id === sessionId);
  return session?.model ?? state.settings?.defaultModel ?? null;
}

/** Whether an endpoint lists a model by that name; Ollama takes `name` for `name:latest`. */
export function listsModel(models: readonly ModelInfo[], name: string): boolean {
  return models.some((model) => model.id === name || model.id === `${name}:latest` || `${model.id}:latest` === name);
}

/**
 * Why a session cannot send now, in words, or null when it can: no endpoint, no model, an endpoint that did not answer,
 * or a model the endpoint does not have. Anthropic's endpoint is not held to its list, as it takes aliases it does not
 * list.
 */
export function sendBlock(state: AppState, sessionId: string): string | null {
  if (state.providers.length === 0) return 'Add a model endpoint in Settings to send.';
  const choice = effectiveModel(state, sessionId);
  if (choice === null) return 'Pick an endpoint and a model to send.';
  const provider = state.providers.find((candidate) => candidate.id === choice.providerId);
  if (!provider) return 'This session’s endpoint was removed: pick another to send.';
  const endpoint = state.endpoints[provider.id];
  if (endpoint?.state === 'unreachable') return `${provider.name} cannot be reached. ${endpoint.message}`;
  if (choice.model === '') return `Pick a model of ${provider.name} to send.`;
  if (endpoint?.state === 'ok' && provider.kind !== 'anthropic' && !listsModel(endpoint.models, choice.model)) {
    if (endpoint.models.length > 0) return `${provider.name} has no model “${choice.model}”: pick one it lists.`;
    return provider.kind === 'ollama'
      ? `${provider.name} has no models yet: download one first (\`ollama pull <model>\`).`
      : `${provider.name} lists no models: load one in the server first.`;
  }
  return null;
}

/** No model can answer: no endpoint yet, or every endpoint was asked and none answered. */
export function noModelWorks(state: AppState): boolean {
  return state.providers.length === 0 || state.providers.every((provider) => state.endpoints[provider.id]?.state === 'unreachable');
}
