/*
 * The setup's way to the Anthropic API: a key (and an address, for a gateway), checked by listing the models it opens,
 * then one of them used.
 */

import { useState } from 'react';
import { errorMessage } from '../client';
import type { AppStore } from '../store';

const anthropicAddress = 'https://api.anthropic.com';

/** A model to start with: the newest Sonnet the key opens, else the first listed. */
function suggested(models: readonly string[]): string {
  return models.find((model) => /sonnet/i.test(model)) ?? models[0] ?? '';
}

/**
 * The Anthropic API in the setup: the key is saved (encrypted, as every key) only once the models it opens were listed;
 * a key that does not work is said in words and nothing is kept. Then "Use" takes the model picked.
 */
export function SetupAnthropic({
  store,
  onEngage,
  onUse,
}: {
  store: AppStore;
  onEngage: () => void;
  onUse: (providerId: string, model: string, serverName: string) => void;
}) {
  const [key, setKey] = useState('');
  const [address, setAddress] = useState(anthropicAddress);
  const [working, setWorking] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [found, setFound] = useState<{ providerId: string; models: string[] } | null>(null);
  const [picked, setPicked] = useState('');

  const connect = async (): Promise<void> => {
    onEngage();
    setWorking(true);
    setProblem(null);
    let savedId: string | null = null;
    try {
      const saved = await store.call('provider:save', {
        kind: 'anthropic',
        name: 'Anthropic',
        baseUrl: address.trim(),
        apiKey: key.trim(),
      });
      savedId = saved.id;
      const models = (await store.call('provider:models', { providerId: saved.id })).map((model) => model.id);
      if (models.length === 0) throw new Error('the key opens no models');
      await store.refreshProviders();
      setFound({ providerId: saved.id, models });
      setPicked(suggested(models));
    } catch (error) {
      // A key that does not work is not kept.
      if (savedId) await store.call('provider:remove', { providerId: savedId }).catch(() => undefined);
      setProblem(`Anthropic did not accept this: ${errorMessage(error)}`);
    } finally {
      setWorking(false);
    }
  };

  return (
    <section className="setup-anthropic" aria-label="Use the Anthropic API">
      <h3>Use the Anthropic API</h3>
      {found === null ? (
        <form
          className="setup-anthropic-form"
          onSubmit={(event) => {
            event.preventDefault();
            void connect();
          }}
        >
          <label className="small">
            API key
            <input
              type="password"
              autoComplete="off"
              placeholder="sk-ant-…"
              value={key}
              maxLength={400}
              onChange={(event) => setKey(event.target.value)}
            />
          </label>
          <details className="small">
            <summary>Address (for a gateway)</summary>
            <input aria-label="Anthropic address" value={address} maxLength={400} onChange={(event) => setAddress(event.target.value)} />
          </details>
          <button type="submit" disabled={working || key.trim() === '' || address.trim() === ''}>
            {working ? 'Checking the key…' : 'Connect'}
          </button>
          <p className="muted small">The key is stored encrypted on this computer and sent only to this address.</p>
        </form>
      ) : (
        <div className="row wrap">
          <select aria-label="Anthropic model" value={picked} onChange={(event) => setPicked(event.target.value)}>
            {found.models.map((model) => (
              <option key={model} value={model}>
                {model}
              </option>
            ))}
          </select>
          <button type="button" className="primary" disabled={picked === ''} onClick={() => onUse(found.providerId, picked, 'Anthropic')}>
            Use {picked}
          </button>
        </div>
      )}
      {problem && (
        <p className="setup-model-problem small" role="alert">
          {problem}
        </p>
      )}
    </section>
  );
}
