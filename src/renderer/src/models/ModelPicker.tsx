/*
 * The model picker of a session: its endpoint and model, saved at once, with the endpoint's state and the model's
 * check beside them.
 */

import { useEffect, useRef, useState } from 'react';
import { busyStatuses, type SessionModel } from '../../../shared/domain';
import { useDisposables } from '../disposables';
import { effectiveModel, listsModel } from './model-readiness';
import { useAppState, type AppStore } from '../store';
import { ModelDoctorBadge } from './ModelDoctor';

/**
 * Endpoint and model of a session, always as the session runs them: a pick is saved at once. Picking an endpoint keeps
 * the model when the endpoint has it, else takes the default model or the first one the endpoint lists, or none while
 * the endpoint cannot be reached (marked so, with a "Check again", and asked again every 15 s). A name can be typed;
 * Send waits until the endpoint lists it (Anthropic's aliases excepted).
 */
export function ModelPicker({ store, sessionId }: { store: AppStore; sessionId: string }) {
  const providers = useAppState(store, (state) => state.providers);
  const choice = useAppState(store, (state) => effectiveModel(state, sessionId));
  const fallback = useAppState(store, (state) => state.settings?.defaultModel ?? null);
  const busy = useAppState(store, (state) => busyStatuses.has(state.views[sessionId]?.status ?? 'idle'));
  const providerId = choice?.providerId ?? '';
  const endpoint = useAppState(store, (state) => (providerId ? state.endpoints[providerId] : undefined));
  const [typed, setTyped] = useState(choice?.model ?? '');

  useEffect(() => {
    setTyped(choice?.model ?? '');
  }, [choice?.providerId, choice?.model]);
  useEffect(() => {
    if (providerId) void store.checkEndpoint(providerId);
  }, [store, providerId]);
  // A server started after the app is found without a click.
  const unreachable = endpoint?.state === 'unreachable';
  useDisposables(
    (disposables) => {
      if (unreachable) disposables.interval(() => void store.checkEndpoint(providerId, true), 15_000);
    },
    [store, providerId, unreachable],
  );
  // What is in the field now, typed or not yet saved: an automatic pick never replaces it.
  const field = useRef(typed);
  field.current = typed;

  const models = endpoint?.state === 'ok' ? endpoint.models : [];
  const provider = providers.find((candidate) => candidate.id === providerId);

  const save = async (next: SessionModel): Promise<void> => {
    const current = effectiveModel(store.getState(), sessionId);
    if (current?.providerId === next.providerId && current.model === next.model) return;
    await store.setSessionModel(sessionId, next);
  };

  const pickEndpoint = async (nextProvider: string): Promise<void> => {
    const before = typed;
    const known = store.getState().endpoints[nextProvider];
    const keep = known?.state === 'ok' && before !== '' && listsModel(known.models, before) ? before : '';
    await save({ providerId: nextProvider, model: keep });
    if (keep !== '') return;
    const checked = await store.checkEndpoint(nextProvider);
    const now = store.getState().sessions.find((candidate) => candidate.id === sessionId)?.model;
    // Only while the pick still stands with no model and nothing was typed meanwhile.
    const typedMeanwhile = field.current !== '' && field.current !== before;
    if (checked.state !== 'ok' || now?.providerId !== nextProvider || now.model !== '' || typedMeanwhile) return;
    const preferred =
      before !== '' && listsModel(checked.models, before)
        ? before
        : fallback?.providerId === nextProvider && listsModel(checked.models, fallback.model)
          ? fallback.model
          : checked.models[0]?.id;
    if (preferred) await save({ providerId: nextProvider, model: preferred });
  };

  if (providers.length === 0) return <span className="muted small">No model endpoint yet: add one in Settings.</span>;
  const unavailable = busy ? 'The model can be changed when this turn ends.' : undefined;
  return (
    <div className="model-picker">
      <select
        aria-label="Model endpoint"
        value={providerId}
        disabled={busy}
        title={unavailable ?? (provider ? `${provider.name}: ${provider.baseUrl}` : 'Pick an endpoint')}
        onChange={(event) => void pickEndpoint(event.target.value)}
      >
        {providerId === '' && <option value="">Pick an endpoint</option>}
        {providers.map((candidate) => (
          <option key={candidate.id} value={candidate.id}>
            {candidate.name}
          </option>
        ))}
      </select>
      {endpoint?.state === 'checking' && (
        <span className="endpoint-state muted small" role="status" aria-label="Endpoint state">
          checking…
        </span>
      )}
      {endpoint?.state === 'unreachable' && (
        <>
          <span className="endpoint-state unreachable small" role="status" aria-label="Endpoint state" title={endpoint.message}>
            unreachable
          </span>
          <button type="button" className="link small" onClick={() => void store.checkEndpoint(providerId, true)}>
            Check again
          </button>
        </>
      )}
      <input
        aria-label="Model"
        list={`models-${sessionId}`}
        placeholder={endpoint?.state === 'unreachable' ? 'type a model name' : 'pick a model'}
        value={typed}
        maxLength={300}
        disabled={busy || providerId === ''}
        title={unavailable ?? (typed || 'Pick a model')}
        onChange={(event) => {
          setTyped(event.target.value);
          if (listsModel(models, event.target.value)) void save({ providerId, model: event.target.value });
        }}
        onBlur={() => void save({ providerId, model: typed.trim() })}
        onKeyDown={(event) => {
          if (event.key === 'Enter') void save({ providerId, model: typed.trim() });
        }}
      />
      <datalist id={`models-${sessionId}`}>
        {models.map((known) => (
          <option key={known.id} value={known.id}>
            {known.contextLength ? `${known.id} (${known.contextLength.toLocaleString()} tokens)` : known.id}
          </option>
        ))}
      </datalist>
      {choice && choice.model !== '' && <ModelDoctorBadge store={store} providerId={choice.providerId} model={choice.model} />}
    </div>
  );
}
