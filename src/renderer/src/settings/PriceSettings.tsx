/*
 * The Model prices section of Settings: prices per million tokens set by the person per model (input, output, cache
 * reads and writes), which the cost of every call and the cost budget use whatever the model's endpoint.
 */

import { useState } from 'react';
import type { ModelPrice, Settings } from '../../../shared/domain';
import { maxPricePerMillion } from '../../../shared/model-prices';
import { errorMessage } from '../client';
import { useAppState, type AppStore } from '../store';
import { SettingsSection, settingField } from './SettingsSection';

/** A price as typed: a number of dollars from 0 up, or (for the cache's, which are optional) nothing. */
function readPrice(text: string, optional: boolean): number | null | undefined {
  if (text.trim() === '') return optional ? null : undefined;
  const value = Number(text);
  return Number.isFinite(value) && value >= 0 && value <= maxPricePerMillion ? value : undefined;
}

/** A price per million tokens in words: $3, $0.25, at the input price. */
const perMillion = (value: number | null): string => (value === null ? 'as input' : `$${value}`);

/**
 * Prices per model, next to its window: the app knows Anthropic's, and takes a model on this machine to cost nothing;
 * any other model's calls have no price until one is set here. 0 is a price.
 */
export function PriceSettings({ store }: { store: AppStore }) {
  const settings = useAppState(store, (state) => state.settings);
  const providers = useAppState(store, (state) => state.providers);
  const [providerId, setProviderId] = useState('');
  const [model, setModel] = useState('');
  const [figures, setFigures] = useState({ input: '', output: '', cacheRead: '', cacheWrite: '' });
  const [refusal, setRefusal] = useState<string | null>(null);
  if (!settings) return null;
  const update = async (modelPrices: Settings['modelPrices']): Promise<void> => {
    try {
      store.setSettings(await store.call('settings:update', { modelPrices }));
      setRefusal(null);
    } catch (error) {
      setRefusal(errorMessage(error));
    }
  };
  const chosenProvider = providerId || providers[0]?.id || '';
  const input = readPrice(figures.input, false);
  const output = readPrice(figures.output, false);
  const cacheRead = readPrice(figures.cacheRead, true);
  const cacheWrite = readPrice(figures.cacheWrite, true);
  const valid =
    chosenProvider !== '' &&
    model.trim() !== '' &&
    input !== undefined &&
    input !== null &&
    output !== undefined &&
    output !== null &&
    cacheRead !== undefined &&
    cacheWrite !== undefined;
  const name = (id: string): string => providers.find((provider) => provider.id === id)?.name ?? id;
  const field = (key: keyof typeof figures, label: string, placeholder: string) => (
    <input
      aria-label={label}
      type="number"
      min={0}
      max={maxPricePerMillion}
      step="any"
      placeholder={placeholder}
      value={figures[key]}
      onChange={(event) => setFigures({ ...figures, [key]: event.target.value })}
    />
  );
  const mark = settingField('prices');
  return (
    <SettingsSection
      id="prices"
      description="US dollars per million tokens. Anthropic's models are priced by the app and a model on this computer costs nothing; any other model's calls have no price, and the cost leaves them out, until you set one here. 0 is a price. Cache prices left blank are billed as input."
    >
      {settings.modelPrices.length > 0 && (
        <ul className="context-overrides" aria-label="Prices set by you" {...mark('Prices set by you', 'cost per model')}>
          {settings.modelPrices.map((item) => (
            <li key={`${item.providerId}/${item.model}`} className="row">
              <span>
                {name(item.providerId)} · {item.model}: <strong>${item.input}</strong> in, <strong>${item.output}</strong> out
                <span className="muted small">
                  {' '}
                  (cache read {perMillion(item.cacheRead)}, write {perMillion(item.cacheWrite)})
                </span>
              </span>
              <button
                type="button"
                aria-label={`Remove the price of ${item.model}`}
                onClick={() => void update(settings.modelPrices.filter((other) => other !== item))}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <form
        className="row price-form"
        aria-label="Set a model's price"
        {...mark("Set a model's price", 'input output cache read write dollars per million tokens cost')}
        onSubmit={(event) => {
          event.preventDefault();
          if (!valid) return;
          const item: ModelPrice = { providerId: chosenProvider, model: model.trim(), input, output, cacheRead, cacheWrite };
          const others = settings.modelPrices.filter((other) => other.providerId !== item.providerId || other.model !== item.model);
          void update([...others, item]);
          setModel('');
          setFigures({ input: '', output: '', cacheRead: '', cacheWrite: '' });
        }}
      >
        <select aria-label="Endpoint of the priced model" value={chosenProvider} onChange={(event) => setProviderId(event.target.value)}>
          {providers.map((provider) => (
            <option key={provider.id} value={provider.id}>
              {provider.name}
            </option>
          ))}
        </select>
        <input aria-label="Model to price" placeholder="model" value={model} onChange={(event) => setModel(event.target.value)} />
        {field('input', 'Input price per million tokens', 'input $')}
        {field('output', 'Output price per million tokens', 'output $')}
        {field('cacheRead', 'Cache read price per million tokens', 'cache read $')}
        {field('cacheWrite', 'Cache write price per million tokens', 'cache write $')}
        <button type="submit" disabled={!valid}>
          Set price
        </button>
      </form>
      {refusal && (
        <p className="error small" role="alert" aria-label="Price refused">
          {refusal}
        </p>
      )}
    </SettingsSection>
  );
}
