/*
 * The default model in Settings: the endpoint and model new sessions start on, and that sessions without a pick of
 * their own run on.
 */

import { useEffect, useState } from 'react';
import { useAppState, type AppStore } from '../store';
import { settingField } from './SettingsSection';

/**
 * The endpoint and model new sessions start on (and a session without its own pick runs on). The model is one the
 * endpoint lists; picking an endpoint takes its first model. "None" leaves new sessions without a model.
 */
export function DefaultModelSettings({ store }: { store: AppStore }) {
  const providers = useAppState(store, (state) => state.providers);
  const choice = useAppState(store, (state) => state.settings?.defaultModel ?? null);
  const endpoint = useAppState(store, (state) => (choice ? state.endpoints[choice.providerId] : undefined));
  const [problem, setProblem] = useState<string | null>(null);
  const field = settingField('behaviour');
  useEffect(() => {
    if (choice) void store.checkEndpoint(choice.providerId);
  }, [store, choice]);
  if (providers.length === 0) return null;
  const save = (next: { providerId: string; model: string } | null): void =>
    void store.attempt(async () => store.setSettings(await store.call('settings:update', { defaultModel: next })));
  const models = endpoint?.state === 'ok' ? endpoint.models : [];
  // The saved model stays offered even when the endpoint does not list it (unreachable now, or a typed name).
  const offered = choice && !models.some((model) => model.id === choice.model) ? [{ id: choice.model }, ...models] : models;
  return (
    <div
      className="form behaviour"
      aria-label="Model of new sessions"
      {...field(
        'Model of new sessions',
        'The endpoint and model new sessions start on, and that sessions without a pick of their own run on. Default model.',
      )}
    >
      <label>
        Endpoint of new sessions
        <select
          aria-label="Default endpoint"
          value={choice?.providerId ?? ''}
          onChange={async (event) => {
            const providerId = event.target.value;
            setProblem(null);
            if (providerId === '') return save(null);
            const found = await store.checkEndpoint(providerId);
            const first = found.state === 'ok' ? found.models[0]?.id : undefined;
            if (first) save({ providerId, model: first });
            else
              setProblem(
                found.state === 'unreachable' ? `Not changed: ${found.message}` : 'Not changed: that endpoint lists no models yet.',
              );
          }}
        >
          <option value="">None: pick for each session</option>
          {providers.map((provider) => (
            <option key={provider.id} value={provider.id}>
              {provider.name}
            </option>
          ))}
        </select>
      </label>
      {choice && (
        <label>
          Model of new sessions
          <select
            aria-label="Default model"
            value={choice.model}
            onChange={(event) => save({ providerId: choice.providerId, model: event.target.value })}
          >
            {offered.map((model) => (
              <option key={model.id} value={model.id}>
                {model.id}
              </option>
            ))}
          </select>
        </label>
      )}
      {problem !== null && (
        <p className="error small" role="alert">
          {problem}
        </p>
      )}
      {problem === null && endpoint?.state === 'unreachable' && <p className="error small">{endpoint.message}</p>}
    </div>
  );
}
