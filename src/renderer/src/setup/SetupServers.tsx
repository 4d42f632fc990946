/*
 * The servers the model setup found on this computer, each with its models to pick, check and use.
 */

import { useState } from 'react';
import { counted } from '../../../shared/counts';
import type { DiscoveredEndpoint, ProviderView } from '../../../shared/ipc/contract';
import { savedServer } from '../../../shared/server-address';
import { errorMessage } from '../client';
import { modelsShown, windowWords } from './model-setup';
import { useAppState, type AppStore } from '../store';
import { ModelDoctorBadge } from '../models/ModelDoctor';

/** The endpoint saved for a server found, saving it first when it is new. Saving changes no default model. */
export async function savedEndpoint(store: AppStore, endpoint: DiscoveredEndpoint): Promise<ProviderView> {
  const known = savedServer(store.getState().providers, endpoint);
  if (known) return known;
  const saved = await store.call('provider:save', { kind: endpoint.kind, name: endpoint.name, baseUrl: endpoint.baseUrl });
  await store.refreshProviders();
  return saved;
}

/** One model of a server found: pick it, see what its check found, check it. */
function ModelRow({
  store,
  endpoint,
  model,
  windowText,
  picked,
  onPick,
  onEngage,
}: {
  store: AppStore;
  endpoint: DiscoveredEndpoint;
  model: string;
  windowText: string | null;
  picked: boolean;
  onPick: () => void;
  onEngage: () => void;
}) {
  const provider = useAppState(store, (state) => savedServer(state.providers, endpoint));
  const check = useAppState(store, (state) => state.checks.find((known) => known.providerId === provider?.id && known.model === model));
  const [checking, setChecking] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const runCheck = async (): Promise<void> => {
    onEngage();
    setChecking(true);
    setFailure(null);
    try {
      const saved = await savedEndpoint(store, endpoint);
      store.putCheck(await store.call('model:check', { providerId: saved.id, model }));
    } catch (error) {
      setFailure(`The check of ${model} failed: ${errorMessage(error)}`);
    } finally {
      setChecking(false);
    }
  };
  return (
    <li className={picked ? 'setup-model picked' : 'setup-model'}>
      <label className="setup-model-name">
        <input type="radio" name={`setup-model-${endpoint.baseUrl}`} checked={picked} onChange={onPick} />
        <span>{model}</span>
        {windowText && <span className="muted small"> · {windowText}</span>}
      </label>
      {provider ? (
        <ModelDoctorBadge store={store} providerId={provider.id} model={model} />
      ) : (
        <span className="muted small">not checked</span>
      )}
      <button type="button" disabled={checking} aria-label={`Check ${model}`} onClick={() => void runCheck()}>
        {checking ? 'Checking…' : check ? 'Check again' : 'Check'}
      </button>
      {check && !check.reachable.ok && (
        <p className="setup-model-problem small" role="status">
          {check.reachable.detail}
        </p>
      )}
      {failure && (
        <p className="setup-model-problem small" role="alert">
          {failure}
        </p>
      )}
    </li>
  );
}

/** A server found, with every model it serves (a long list opens with "Show all") and "Use" for the one picked. */
function FoundServer({
  store,
  endpoint,
  using,
  onEngage,
  onUse,
}: {
  store: AppStore;
  endpoint: DiscoveredEndpoint;
  using: boolean;
  onEngage: () => void;
  onUse: (model: string) => void;
}) {
  const [picked, setPicked] = useState<string | null>(endpoint.models[0]?.id ?? null);
  const [showAll, setShowAll] = useState(false);
  const { shown, hidden } = modelsShown(endpoint.models, showAll);
  const count = endpoint.models.length;
  return (
    <li className="setup-server" aria-label={endpoint.name}>
      <div className="row">
        <strong>{endpoint.name}</strong>
        <code className="small">{endpoint.baseUrl}</code>
        <span className="small">{count === 0 ? 'running, but with no models yet' : counted(count, 'model')}</span>
        <span className="spacer" />
        <button type="button" className="primary" disabled={using || picked === null} onClick={() => picked !== null && onUse(picked)}>
          {using ? 'Saving…' : picked === null ? 'Use' : `Use ${picked}`}
        </button>
      </div>
      {count > 0 && (
        <ul className="setup-models" aria-label={`Models of ${endpoint.name}`}>
          {shown.map((model) => (
            <ModelRow
              key={model.id}
              store={store}
              endpoint={endpoint}
              model={model.id}
              windowText={windowWords(model)}
              picked={picked === model.id}
              onPick={() => setPicked(model.id)}
              onEngage={onEngage}
            />
          ))}
        </ul>
      )}
      {hidden > 0 && (
        <button type="button" className="link small" onClick={() => setShowAll(true)}>
          Show all {counted(count, 'model')} ({hidden} more)
        </button>
      )}
    </li>
  );
}

/** The servers found on this computer, each with its models and their checks. */
export function SetupServers({
  store,
  found,
  using,
  onEngage,
  onUse,
}: {
  store: AppStore;
  found: readonly DiscoveredEndpoint[];
  /** The address of the server being saved for use, if one is. */
  using: string | null;
  onEngage: () => void;
  onUse: (endpoint: DiscoveredEndpoint, model: string) => void;
}) {
  return (
    <>
      <ul className="providers setup-servers" aria-label="Servers found">
        {found.map((endpoint) => (
          <FoundServer
            key={endpoint.baseUrl}
            store={store}
            endpoint={endpoint}
            using={using === endpoint.baseUrl}
            onEngage={onEngage}
            onUse={(model) => onUse(endpoint, model)}
          />
        ))}
      </ul>
      <p className="muted small">
        “Check” tries a model (tool calls, window, speed) and saves its server as an endpoint; it does not change your default model.
      </p>
    </>
  );
}
