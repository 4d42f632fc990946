import { useEffect, useState } from 'react';
import type { DiscoveredEndpoint } from '../../../shared/ipc/contract';
import { useAppState, type AppStore } from '../store';

/** How to get each usual local server running, for the ones that did not answer. Named as discovery names them. */
const serverGuides: ReadonlyArray<{ readonly name: string; readonly port: number; readonly steps: readonly string[] }> = [
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

/** A step's text, with `code` shown as code. */
function Step({ text }: { text: string }) {
  return (
    <li>{text.split('`').map((part, index) => (index % 2 === 1 ? <code key={index}>{part}</code> : <span key={index}>{part}</span>))}</li>
  );
}

/**
 * Getting a model working: looks for the usual local servers, offers each one found with its models ("Use" saves it,
 * makes its first model the default and gives it to the session), and for each one not found says how to install and
 * start it, with "Check again".
 */
export function ModelSetup({
  store,
  sessionId,
  onOpenSettings,
}: {
  store: AppStore;
  sessionId: string | null;
  onOpenSettings: () => void;
}) {
  const [found, setFound] = useState<readonly DiscoveredEndpoint[] | null>(null);
  const [looking, setLooking] = useState(false);
  const [using, setUsing] = useState<string | null>(null);
  const settings = useAppState(store, (state) => state.settings);

  const look = async (): Promise<void> => {
    setLooking(true);
    const result = await store.attempt(() => store.call('provider:discover', {}));
    setFound(result?.found ?? []);
    setLooking(false);
  };
  // Once, when shown: "Check again" asks again.
  useEffect(() => {
    void look();
  }, []);

  const use = async (endpoint: DiscoveredEndpoint): Promise<void> => {
    setUsing(endpoint.baseUrl);
    await store.attempt(async () => {
      const known = store.getState().providers.find((provider) => provider.baseUrl === endpoint.baseUrl && provider.kind === endpoint.kind);
      const saved = known ?? (await store.call('provider:save', { kind: endpoint.kind, name: endpoint.name, baseUrl: endpoint.baseUrl }));
      const first = endpoint.models[0]?.id;
      if (first !== undefined) {
        const choice = { providerId: saved.id, model: first };
        if (!settings?.defaultModel || !store.getState().providers.some((provider) => provider.id === settings.defaultModel?.providerId))
          store.setSettings(await store.call('settings:update', { defaultModel: choice }));
        if (sessionId) await store.setSessionModel(sessionId, choice);
      }
      await store.refreshProviders();
    });
    setUsing(null);
  };

  const missing = serverGuides.filter((guide) => !found?.some((endpoint) => endpoint.name === guide.name));
  return (
    <section className="model-setup card" aria-label="Set up a model">
      <h2>Set up a model</h2>
      <p className="small">
        The agent needs a model server: one on this computer (Ollama, LM Studio, llama.cpp, vLLM) or the Anthropic API.
      </p>
      {found === null && <p className="muted small">Looking for servers on this computer…</p>}
      {found && found.length > 0 && (
        <ul className="providers" aria-label="Servers found">
          {found.map((endpoint) => (
            <li key={endpoint.baseUrl} className="row">
              <strong>{endpoint.name}</strong>
              <code className="small">{endpoint.baseUrl}</code>
              <span className="small">
                {endpoint.models.length === 0
                  ? 'running, but with no models yet'
                  : `${endpoint.models.length} model${endpoint.models.length === 1 ? '' : 's'}: ${endpoint.models
                      .slice(0, 3)
                      .map((model) => model.id)
                      .join(', ')}${endpoint.models.length > 3 ? '…' : ''}`}
              </span>
              <span className="spacer" />
              <button
                type="button"
                className="primary"
                disabled={using !== null || endpoint.models.length === 0}
                aria-label={`Use ${endpoint.name}`}
                onClick={() => void use(endpoint)}
              >
                {using === endpoint.baseUrl ? 'Saving…' : 'Use'}
              </button>
            </li>
          ))}
        </ul>
      )}
      {found && missing.length > 0 && (
        <>
          <p className="small">{found.length === 0 ? 'No server answered on this computer. To start one:' : 'Not running here:'}</p>
          <ul className="server-guides">
            {missing.map((guide) => (
              <li key={guide.name} aria-label={`How to start ${guide.name}`}>
                <strong>{guide.name}</strong> <span className="muted small">(port {guide.port})</span>
                <ol className="small">
                  {guide.steps.map((step) => (
                    <Step key={step} text={step} />
                  ))}
                </ol>
              </li>
            ))}
          </ul>
        </>
      )}
      <div className="row">
        <button type="button" disabled={looking} onClick={() => void look()}>
          {looking ? 'Looking…' : 'Check again'}
        </button>
        <button type="button" className="link" onClick={onOpenSettings}>
          Add an endpoint by hand (any address, or the Anthropic API)…
        </button>
      </div>
    </section>
  );
}
