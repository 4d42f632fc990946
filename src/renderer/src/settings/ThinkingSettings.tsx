/*
 * The Extended thinking section of Settings: which Anthropic models think before they answer, and with how many
 * tokens.
 */

import { useEffect, useState } from 'react';
import { thinkingBudgetLimits } from '../../../shared/domain';
import { useAppState, type AppStore } from '../store';
import { SettingsSection, settingField } from './SettingsSection';

/**
 * Extended thinking per Anthropic model: the tokens a model may think with before it answers, on top
 * of the room kept for the answer. What else is set for the model (its tool protocol) is kept.
 */
export function ThinkingSettings({ store }: { store: AppStore }) {
  const settings = useAppState(store, (state) => state.settings);
  const providers = useAppState(store, (state) => state.providers);
  const [providerId, setProviderId] = useState('');
  const [model, setModel] = useState('');
  const [budget, setBudget] = useState('8192');
  const [models, setModels] = useState<string[]>([]);
  const field = settingField('thinking');
  const anthropic = providers.filter((provider) => provider.kind === 'anthropic');
  const chosen = providerId || anthropic[0]?.id || '';
  useEffect(() => {
    let live = true;
    setModels([]);
    if (chosen === '') return;
    store
      .call('provider:models', { providerId: chosen })
      .then((found) => live && setModels(found.map((item) => item.id)))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [store, chosen]);
  if (!settings) return null;
  // Main changes this model's entry alone: what else is set for it, or for other models, is kept.
  const save = (endpoint: string, name: string, thinkingBudget: number | null): void =>
    void store.attempt(async () =>
      store.setSettings(await store.call('model:configure', { providerId: endpoint, model: name, thinkingBudget })),
    );
  const size = Number(budget);
  const valid =
    chosen !== '' && model.trim() !== '' && Number.isInteger(size) && size >= thinkingBudgetLimits.min && size <= thinkingBudgetLimits.max;
  const thinking = settings.modelSettings.filter((item) => item.thinkingBudget !== null);
  const name = (id: string): string => providers.find((provider) => provider.id === id)?.name ?? id;
  return (
    <SettingsSection
      id="thinking"
      description="Anthropic models can think before they answer, within a budget of tokens you choose. The budget is asked for on top of the room kept for the answer, and is billed as output."
    >
      {thinking.length > 0 && (
        <ul className="context-overrides" aria-label="Models that think" {...field('Models that think', 'thinking budget in tokens')}>
          {thinking.map((item) => (
            <li key={`${item.providerId}/${item.model}`} className="row">
              <span>
                {name(item.providerId)} · {item.model}: thinks with up to <strong>{item.thinkingBudget?.toLocaleString('en-US')}</strong>{' '}
                tokens
              </span>
              <button
                type="button"
                aria-label={`Turn off thinking for ${item.model}`}
                onClick={() => save(item.providerId, item.model, null)}
              >
                Turn off
              </button>
            </li>
          ))}
        </ul>
      )}
      {anthropic.length === 0 ? (
        <p className="muted small" {...field('Thinking budget in tokens', 'Add an Anthropic endpoint to use it.')}>
          Add an Anthropic endpoint to use it.
        </p>
      ) : (
        <form
          className="row"
          aria-label="Turn on thinking for a model"
          {...field('Turn on thinking for a model', 'Anthropic endpoint, model that thinks, thinking budget in tokens')}
          onSubmit={(event) => {
            event.preventDefault();
            if (!valid) return;
            save(chosen, model.trim(), size);
            setModel('');
          }}
        >
          <select aria-label="Anthropic endpoint" value={chosen} onChange={(event) => setProviderId(event.target.value)}>
            {anthropic.map((provider) => (
              <option key={provider.id} value={provider.id}>
                {provider.name}
              </option>
            ))}
          </select>
          <input
            aria-label="Model that thinks"
            placeholder="model"
            list="thinking-models"
            value={model}
            onChange={(event) => setModel(event.target.value)}
          />
          <datalist id="thinking-models">
            {models.map((id) => (
              <option key={id} value={id} />
            ))}
          </datalist>
          <input
            aria-label="Thinking budget in tokens"
            type="number"
            min={thinkingBudgetLimits.min}
            max={thinkingBudgetLimits.max}
            value={budget}
            onChange={(event) => setBudget(event.target.value)}
          />
          <button type="submit" disabled={!valid}>
            Turn on thinking
          </button>
        </form>
      )}
    </SettingsSection>
  );
}
