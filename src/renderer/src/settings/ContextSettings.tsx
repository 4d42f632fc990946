/*
 * The Context window section of Settings: when older messages are summarized, the room kept for answers, and windows
 * set by the person per model.
 */

import { useEffect, useState } from 'react';
import type { ContextWindow, ContextWindowOverride, Settings } from '../../../shared/domain';
import { useAppState, type AppStore } from '../store';
import { SettingsSection, settingField } from './SettingsSection';

/**
 * How the conversation is fitted into a model's window: when older messages are summarized, the
 * room kept for answers, and per model a window of the person's own that wins over the server's.
 */
export function ContextSettings({ store }: { store: AppStore }) {
  const settings = useAppState(store, (state) => state.settings);
  const providers = useAppState(store, (state) => state.providers);
  const [providerId, setProviderId] = useState('');
  const [model, setModel] = useState('');
  const [tokens, setTokens] = useState('');
  const field = settingField('context');
  if (!settings) return null;
  const update = (change: Partial<Pick<Settings, 'contextWindows' | 'compactAt' | 'answerTokens' | 'codeMapShare'>>): void =>
    void store.attempt(async () => store.setSettings(await store.call('settings:update', change)));
  const chosenProvider = providerId || providers[0]?.id || '';
  const size = Number(tokens);
  const valid = chosenProvider !== '' && model.trim() !== '' && Number.isInteger(size) && size >= 1024 && size <= 10_000_000;
  const name = (id: string): string => providers.find((provider) => provider.id === id)?.name ?? id;
  return (
    <SettingsSection id="context">
      <div className="form behaviour">
        <label {...field('Summarize older messages when a request passes this share of the window', 'Compaction threshold')}>
          Summarize older messages when a request passes this share of the window
          <select
            aria-label="Compaction threshold"
            value={String(settings.compactAt)}
            onChange={(event) => update({ compactAt: Number(event.target.value) })}
          >
            {[0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9].map((share) => (
              <option key={share} value={String(share)}>
                {Math.round(share * 100)}%
              </option>
            ))}
          </select>
        </label>
        <label {...field('Room kept for each answer, in tokens (at most a quarter of the window)', 'Answer tokens')}>
          Room kept for each answer, in tokens (at most a quarter of the window)
          <input
            aria-label="Answer tokens"
            type="number"
            min={256}
            max={128000}
            value={settings.answerTokens}
            onChange={(event) => event.target.valueAsNumber >= 256 && update({ answerTokens: event.target.valueAsNumber })}
          />
        </label>
        <label {...field('Code map given with each message, as a share of the window (at most 4,096 tokens)', 'Code map')}>
          Code map given with each message, as a share of the window (at most 4,096 tokens)
          <select
            aria-label="Code map share"
            value={String(settings.codeMapShare)}
            onChange={(event) => update({ codeMapShare: Number(event.target.value) })}
          >
            {[...new Set([0, 0.03, 0.06, 0.1, 0.15, 0.2, settings.codeMapShare])]
              .sort((a, b) => a - b)
              .map((share) => (
                <option key={share} value={String(share)}>
                  {share === 0 ? 'None' : `${Math.round(share * 100)}%`}
                </option>
              ))}
          </select>
        </label>
      </div>
      <p
        className="muted small"
        {...field("A model's window", 'read from its server; num_ctx; 8,192 tokens are assumed where a server does not say')}
      >
        Each model&apos;s window is read from its server (for Ollama it is chosen by the app and sent as num_ctx). Where a server does not
        say, 8,192 tokens are assumed. Set a model&apos;s window here when you know better.
      </p>
      {settings.contextWindows.length > 0 && (
        <ul className="context-overrides" aria-label="Windows set by you" {...field('Windows set by you', "A model's window in tokens")}>
          {settings.contextWindows.map((item) => (
            <OverrideRow
              key={`${item.providerId}/${item.model}`}
              store={store}
              item={item}
              endpoint={name(item.providerId)}
              onRemove={() => update({ contextWindows: settings.contextWindows.filter((other) => other !== item) })}
            />
          ))}
        </ul>
      )}
      <form
        className="row"
        aria-label="Set a model's window"
        {...field("Set a model's window", 'Endpoint, model and window in tokens')}
        onSubmit={(event) => {
          event.preventDefault();
          if (!valid) return;
          const item: ContextWindowOverride = { providerId: chosenProvider, model: model.trim(), tokens: size };
          const others = settings.contextWindows.filter((other) => other.providerId !== item.providerId || other.model !== item.model);
          update({ contextWindows: [...others, item] });
          setModel('');
          setTokens('');
        }}
      >
        <select aria-label="Endpoint of the model" value={chosenProvider} onChange={(event) => setProviderId(event.target.value)}>
          {providers.map((provider) => (
            <option key={provider.id} value={provider.id}>
              {provider.name}
            </option>
          ))}
        </select>
        <input
          aria-label="Model whose window to set"
          placeholder="model"
          value={model}
          onChange={(event) => setModel(event.target.value)}
        />
        <input
          aria-label="Window in tokens"
          type="number"
          min={1024}
          max={10000000}
          placeholder="tokens"
          value={tokens}
          onChange={(event) => setTokens(event.target.value)}
        />
        <button type="submit" disabled={!valid}>
          Set window
        </button>
      </form>
    </SettingsSection>
  );
}

/** One window the person set, with what the server itself says beside it. */
function OverrideRow({
  store,
  item,
  endpoint,
  onRemove,
}: {
  store: AppStore;
  item: ContextWindowOverride;
  endpoint: string;
  onRemove: () => void;
}) {
  const [reported, setReported] = useState<ContextWindow | null>(null);
  useEffect(() => {
    let live = true;
    store
      .call('provider:window', { providerId: item.providerId, model: item.model })
      .then((found) => live && setReported(found))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [store, item.providerId, item.model]);
  return (
    <li className="row">
      <span>
        {endpoint} · {item.model}: <strong>{item.tokens.toLocaleString('en-US')}</strong> tokens
        {reported?.trained ? <span className="muted small"> (trained for {reported.trained.toLocaleString('en-US')})</span> : null}
      </span>
      <button type="button" aria-label={`Remove the window of ${item.model}`} onClick={onRemove}>
        Remove
      </button>
    </li>
  );
}
