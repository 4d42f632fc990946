/*
 * The model setup, shown on a first run and whenever no model works: a model (a server found, or one run here), then a
 * folder.
 */

import { useEffect, useState } from 'react';
import type { DiscoveredEndpoint, DiscoveryResult } from '../../../shared/ipc/contract';
import { errorMessage } from '../client';
import { nextLookTimeout, type ChosenModel } from './model-setup';
import { useAppState, type AppStore } from '../store';
import { SetupFolder } from './SetupFolder';
import { SetupGuides } from './SetupGuides';
import { SetupServers, savedEndpoint } from './SetupServers';
import { SetupLocal } from './SetupLocal';
import { SetupAnthropic } from './SetupAnthropic';
import type { SetupProgress } from './setup-progress';
import { localEndpointName } from '../../../shared/local-models';

/**
 * The first run, and the empty state whenever no model works, in two steps. First the model: looks for the usual local
 * servers, lists each one found with all its models, what the model doctor found about each and "Check", and "Use"
 * for the one picked; for each one not found, how to install and start it; a server that answered too slowly is said
 * to be slow, and "Check again" waits longer. Then the folder (`SetupFolder`), which ends on a ready session.
 */
export function ModelSetup({
  store,
  sessionId,
  chosen,
  progress,
  onOpenSettings,
}: {
  store: AppStore;
  sessionId: string | null;
  /** The model chosen in the first step; the setup is at its folder step when there is one. */
  chosen: ChosenModel | null;
  progress: SetupProgress;
  onOpenSettings: () => void;
}) {
  if (chosen !== null && sessionId !== null)
    return <SetupFolder store={store} sessionId={sessionId} chosen={chosen} onDone={progress.onDone} />;
  return <ModelStep store={store} sessionId={sessionId} progress={progress} onOpenSettings={onOpenSettings} />;
}

function ModelStep({
  store,
  sessionId,
  progress,
  onOpenSettings,
}: {
  store: AppStore;
  sessionId: string | null;
  progress: SetupProgress;
  onOpenSettings: () => void;
}) {
  const [result, setResult] = useState<DiscoveryResult | null>(null);
  const [looking, setLooking] = useState(false);
  const [using, setUsing] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const settings = useAppState(store, (state) => state.settings);

  const look = async (timeoutMs?: number): Promise<void> => {
    setLooking(true);
    setFailure(null);
    try {
      setResult(await store.call('provider:discover', timeoutMs === undefined ? {} : { timeoutMs }));
    } catch (error) {
      setFailure(`Looking for servers failed: ${errorMessage(error)}`);
    } finally {
      setLooking(false);
    }
  };
  // Once, when shown: "Check again" asks again.
  useEffect(() => {
    void look();
  }, []);

  const use = async (endpoint: DiscoveredEndpoint, model: string): Promise<void> => {
    progress.onEngage();
    setUsing(endpoint.baseUrl);
    setFailure(null);
    try {
      const saved = await savedEndpoint(store, endpoint);
      const choice = { providerId: saved.id, model };
      // The default model changes only when there is none that works: "Use" on a first run, never a check.
      if (!settings?.defaultModel || !store.getState().providers.some((provider) => provider.id === settings.defaultModel?.providerId))
        store.setSettings(await store.call('settings:update', { defaultModel: choice }));
      let target = sessionId;
      if (target === null) {
        await store.createSession();
        target = store.getState().selectedId;
      }
      if (target !== null) await store.setSessionModel(target, choice);
      await store.refreshProviders();
      progress.onChosen({ ...choice, serverName: endpoint.name });
    } catch (error) {
      setFailure(`${endpoint.name} could not be set up: ${errorMessage(error)}`);
    } finally {
      setUsing(null);
    }
  };

  // A model chosen by its endpoint's id (one on this computer, or Anthropic's): the session takes it, and the default
  // model when none works.
  const take = async (choice: { providerId: string; model: string }, serverName: string): Promise<void> => {
    progress.onEngage();
    setFailure(null);
    try {
      await store.refreshProviders();
      const current = (await store.call('settings:get', {})).defaultModel;
      if (!current || !store.getState().providers.some((provider) => provider.id === current.providerId))
        store.setSettings(await store.call('settings:update', { defaultModel: choice }));
      else store.setSettings(await store.call('settings:get', {}));
      let target = sessionId;
      if (target === null) {
        await store.createSession();
        target = store.getState().selectedId;
      }
      if (target !== null) await store.setSessionModel(target, choice);
      progress.onChosen({ ...choice, serverName });
    } catch (error) {
      setFailure(`The model could not be set up: ${errorMessage(error)}`);
    }
  };

  // A model on this computer was added: main saved the "This computer" endpoint (and the default model when there was
  // none); the session takes it.
  const takeLocal = async (modelId: string): Promise<void> => {
    await store.refreshProviders();
    const local = store.getState().providers.find((provider) => provider.kind === 'local');
    if (!local) return setFailure(`The model could not be set up: the “${localEndpointName}” endpoint is missing`);
    await take({ providerId: local.id, model: modelId }, local.name);
  };

  const longer = nextLookTimeout(result);
  return (
    <section className="model-setup card" aria-label="Set up a model">
      <h2>Set up a model</h2>
      <div className="model-setup-body">
        <p className="small">
          The agent needs a model: one the app runs itself, a model server on this computer (Ollama, LM Studio, llama.cpp, vLLM), or the
          Anthropic API.
        </p>
        {result === null && looking && <p className="muted small">Looking for servers on this computer…</p>}
        {result && result.found.length > 0 && (
          <SetupServers store={store} found={result.found} using={using} onEngage={progress.onEngage} onUse={(e, m) => void use(e, m)} />
        )}
        <SetupLocal store={store} onEngage={progress.onEngage} onAdded={(modelId) => void takeLocal(modelId)} />
        <SetupAnthropic
          store={store}
          onEngage={progress.onEngage}
          onUse={(providerId, model, serverName) => void take({ providerId, model }, serverName)}
        />
        {result && <SetupGuides result={result} />}
        {failure && (
          <p className="setup-model-problem small" role="alert">
            {failure}
          </p>
        )}
      </div>
      <div className="row model-setup-actions">
        <button type="button" disabled={looking} onClick={() => void look(longer)}>
          {looking ? (longer === undefined ? 'Looking…' : `Waiting up to ${longer / 1000} s…`) : 'Check again'}
        </button>
        <button type="button" className="link" onClick={onOpenSettings}>
          Add an endpoint by hand…
        </button>
      </div>
    </section>
  );
}
