/*
 * The Model endpoints section of Settings: the endpoints saved (each tested, removed, its models checked), the local
 * servers found on this machine, and the form that adds one.
 */

import { useEffect, useState } from 'react';
import { counted } from '../../../shared/counts';
import type { ProviderKind } from '../../../shared/domain';
import { savedServer } from '../../../shared/server-address';
import type { ConnectionTestResult, DiscoveredEndpoint } from '../../../shared/ipc/contract';
import { errorMessage } from '../client';
import { ErrorDetails } from '../chrome/ErrorDetails';
import { EndpointChecks } from '../models/ModelDoctor';
import { useAppState, type AppStore } from '../store';
import { SettingsSection, settingField } from './SettingsSection';

/** Where each kind of server usually listens: Ollama at its root, LM Studio's OpenAI-compatible API under /v1. */
const defaultUrls: Record<ProviderKind, string> = {
  ollama: 'http://127.0.0.1:11434',
  'openai-compatible': 'http://127.0.0.1:1234/v1',
  anthropic: 'https://api.anthropic.com',
  local: 'builtin:this-computer',
};

function TestResult({ result }: { result: ConnectionTestResult }) {
  if (result.ok) {
    return (
      <p className="ok small" role="status">
        Connected in {Math.round(result.latencyMs)} ms · {counted(result.models.length, 'model')}
        {result.models.length > 0 &&
          `: ${result.models
            .slice(0, 5)
            .map((model) => model.id)
            .join(', ')}${result.models.length > 5 ? '…' : ''}`}
      </p>
    );
  }
  return (
    <div className="error small" role="alert">
      {result.error?.message ?? 'The connection failed.'}
      <ErrorDetails detail={result.error?.detail} />
    </div>
  );
}

/** A name for an endpoint saved without one: its host, or the kind's name when the address does not parse. */
function nameFor(kind: ProviderKind, baseUrl: string): string {
  if (kind === 'anthropic') return 'Anthropic';
  try {
    return new URL(baseUrl).host || baseUrl;
  } catch {
    return kind === 'ollama' ? 'Ollama' : 'Local server';
  }
}

/** A server "Find local servers" found: its models, and Add, or the endpoint it is saved as already. */
function FoundServer({ store, endpoint }: { store: AppStore; endpoint: DiscoveredEndpoint }) {
  const saved = useAppState(store, (state) => savedServer(state.providers, endpoint));
  const [adding, setAdding] = useState(false);
  const where = `${endpoint.name} at ${endpoint.baseUrl}`;
  return (
    <li className="card row" aria-label={where}>
      <strong>{endpoint.name}</strong>
      <code className="small">{endpoint.baseUrl}</code>
      <span className="muted small">{counted(endpoint.models.length, 'model')}</span>
      <span className="spacer" />
      {saved ? (
        <span className="badge">Saved as “{saved.name}”</span>
      ) : (
        <button
          type="button"
          aria-label={`Add ${where}`}
          disabled={adding}
          onClick={() => {
            setAdding(true);
            void store
              .attempt(async () => {
                await store.call('provider:save', { kind: endpoint.kind, name: endpoint.name, baseUrl: endpoint.baseUrl });
                await store.refreshProviders();
              })
              .finally(() => setAdding(false));
          }}
        >
          Add
        </button>
      )}
    </li>
  );
}

/** Whether a configured endpoint answers, as its models were last asked for; with "Check again". */
function EndpointReach({ store, providerId }: { store: AppStore; providerId: string }) {
  const endpoint = useAppState(store, (state) => state.endpoints[providerId]);
  useEffect(() => {
    void store.checkEndpoint(providerId);
  }, [store, providerId]);
  if (!endpoint) return null;
  if (endpoint.state === 'checking') return <span className="muted small">checking…</span>;
  if (endpoint.state === 'ok')
    return (
      <span className="ok small" aria-label="Reachable">
        reachable · {counted(endpoint.models.length, 'model')}
      </span>
    );
  return (
    <span className="endpoint-state unreachable small" aria-label="Unreachable" title={endpoint.message}>
      unreachable
    </span>
  );
}

function AddEndpointForm({ store }: { store: AppStore }) {
  const field = settingField('endpoints');
  const [kind, setKind] = useState<ProviderKind>('ollama');
  const [name, setName] = useState('');
  const [baseUrl, setBaseUrl] = useState(defaultUrls.ollama);
  const [apiKey, setApiKey] = useState('');
  const [result, setResult] = useState<ConnectionTestResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<{ readonly text: string; readonly reachable: boolean } | null>(null);
  const input = { kind, baseUrl: baseUrl.trim(), ...(apiKey ? { apiKey } : {}) };
  return (
    <form
      className="card form"
      aria-label="Add an endpoint"
      {...field(
        'Add an endpoint',
        'Kind, name, base URL and API key of a server: Ollama, OpenAI-compatible (LM Studio, llama.cpp, vLLM) or Anthropic. Test connection.',
      )}
      onSubmit={(event) => {
        event.preventDefault();
        setError(null);
        setSaved(null);
        store
          .call('provider:save', { ...input, name: name.trim() || nameFor(kind, input.baseUrl) })
          .then(async (endpoint) => {
            setName('');
            setApiKey('');
            setResult(null);
            await store.refreshProviders();
            // Saved either way; whether it answers is said at once, not found out at the first message.
            const reach = await store.checkEndpoint(endpoint.id);
            if (reach.state === 'unreachable')
              setSaved({ text: `Saved “${endpoint.name}”, but it cannot be reached now. ${reach.message}`, reachable: false });
            else if (reach.state === 'ok')
              setSaved({
                text: `Saved “${endpoint.name}”: reachable, ${counted(reach.models.length, 'model')}.`,
                reachable: true,
              });
          })
          .catch((caught: unknown) => setError(errorMessage(caught)));
      }}
    >
      <h3>Add an endpoint</h3>
      <label>
        Kind
        <select
          value={kind}
          onChange={(event) => {
            const next = event.target.value as ProviderKind;
            setKind(next);
            setBaseUrl(defaultUrls[next]);
          }}
        >
          <option value="ollama">Ollama</option>
          <option value="openai-compatible">OpenAI-compatible (LM Studio, llama.cpp, vLLM)</option>
          <option value="anthropic">Anthropic</option>
        </select>
      </label>
      <label>
        Name
        <input value={name} maxLength={100} placeholder="optional" onChange={(event) => setName(event.target.value)} />
      </label>
      <label>
        Base URL
        <input value={baseUrl} maxLength={2048} onChange={(event) => setBaseUrl(event.target.value)} />
      </label>
      <label>
        API key
        <input
          type="password"
          value={apiKey}
          maxLength={500}
          autoComplete="off"
          placeholder={kind === 'anthropic' ? 'required' : 'usually none'}
          onChange={(event) => setApiKey(event.target.value)}
        />
      </label>
      <div className="row">
        <button
          type="button"
          onClick={() => {
            setResult(null);
            setError(null);
            store.call('provider:test', input).then(setResult, (caught: unknown) => setError(errorMessage(caught)));
          }}
        >
          Test connection
        </button>
        <button type="submit" className="primary">
          Save endpoint
        </button>
      </div>
      {result && <TestResult result={result} />}
      {saved && (
        <p className={saved.reachable ? 'ok small' : 'error small'} role={saved.reachable ? 'status' : 'alert'} aria-label="Saved endpoint">
          {saved.text}
        </p>
      )}
      {error && (
        <p className="error small" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

/**
 * The model endpoints: those saved, each with its state, a test, Remove and its models' checks; the local servers found
 * on the usual ports, to add; and the form that adds one by hand.
 */
export function EndpointSettings({ store }: { store: AppStore }) {
  const providers = useAppState(store, (state) => state.providers);
  const [tests, setTests] = useState<Record<string, ConnectionTestResult>>({});
  const [found, setFound] = useState<DiscoveredEndpoint[] | null>(null);
  const [searching, setSearching] = useState(false);
  const field = settingField('endpoints');
  return (
    <SettingsSection id="endpoints">
      {providers.length === 0 && <p className="muted">None yet. Find a local server or add one below.</p>}
      <ul className="providers">
        {providers.map((provider) => (
          <li key={provider.id} className="card" {...field(provider.name, `${provider.kind} ${provider.baseUrl}`)}>
            <div className="row">
              <strong>{provider.name}</strong>
              <span className="muted small">{provider.kind}</span>
              <code className="small">{provider.baseUrl}</code>
              {provider.hasKey && <span className="badge">key stored</span>}
              <EndpointReach store={store} providerId={provider.id} />
              <span className="spacer" />
              <button
                type="button"
                aria-label={`Test ${provider.name}`}
                onClick={() =>
                  void store.attempt(async () => {
                    const result = await store.call('provider:test', { providerId: provider.id });
                    setTests((current) => ({ ...current, [provider.id]: result }));
                    void store.checkEndpoint(provider.id, true);
                  })
                }
              >
                Test
              </button>
              <button
                type="button"
                className="danger"
                aria-label={`Remove ${provider.name}`}
                onClick={() =>
                  void store.attempt(async () => {
                    await store.call('provider:remove', { providerId: provider.id });
                    await store.refreshProviders();
                  })
                }
              >
                Remove
              </button>
            </div>
            {tests[provider.id] && <TestResult result={tests[provider.id]!} />}
            <EndpointChecks store={store} providerId={provider.id} />
          </li>
        ))}
      </ul>
      <div className="row" {...field('Find local servers', 'Probes Ollama (11434), LM Studio (1234), llama.cpp (8080) and vLLM (8000)')}>
        <button
          type="button"
          disabled={searching}
          onClick={() => {
            setSearching(true);
            void store
              .attempt(() => store.call('provider:discover', {}))
              .then((result) => {
                setFound(result?.found ?? []);
                setSearching(false);
              });
          }}
        >
          {searching ? 'Looking…' : 'Find local servers'}
        </button>
        <span className="muted small">Probes Ollama (11434), LM Studio (1234), llama.cpp (8080) and vLLM (8000) on this machine.</span>
      </div>
      {found && found.length === 0 && (
        <p className="small" role="status">
          No local server answered on the usual ports. Start one (Ollama: <code>ollama serve</code>; LM Studio: Developer → Start Server;
          llama.cpp: <code>llama-server -m &lt;model.gguf&gt; --port 8080</code>; vLLM: <code>vllm serve &lt;model&gt;</code>), then look
          again, or add its address below.
        </p>
      )}
      {found && found.length > 0 && (
        <ul className="providers" aria-label="Servers found">
          {found.map((endpoint) => (
            <FoundServer key={`${endpoint.kind} ${endpoint.baseUrl}`} store={store} endpoint={endpoint} />
          ))}
        </ul>
      )}
      <AddEndpointForm store={store} />
    </SettingsSection>
  );
}
