/*
 * The Models on this computer section of Settings: each model with its size and where it came from, Remove, and the
 * downloads under way.
 */

import { useEffect, useState } from 'react';
import type { LocalModel } from '../../../shared/local-models';
import { sizeWords } from '../../../shared/model-catalogue';
import { tokensWords } from '../models/local-model-words';
import type { AppStore } from '../store';
import { DownloadProgress, useModelDownloads } from '../models/DownloadProgress';
import { SettingsSection, settingField } from './SettingsSection';

const sourceWords: Record<LocalModel['source'], string> = {
  downloaded: 'downloaded',
  file: 'a file of yours, kept where it is',
  ollama: 'from Ollama, kept in its folder',
  'lm-studio': 'from LM Studio, kept in its folder',
};

/** The models on this computer (size, where from, Remove) and the downloads under way. */
export function LocalModelSettings({ store }: { store: AppStore }) {
  const [models, setModels] = useState<LocalModel[]>([]);
  const refresh = (): void => void store.attempt(async () => setModels(await store.call('local-model:list', {})));
  const downloads = useModelDownloads(store, refresh);
  const field = settingField('local-models');
  useEffect(refresh, [store]);
  const shown = [...downloads.values()].filter((view) => view.state !== 'done' && view.error?.code !== 'cancelled');
  return (
    <SettingsSection id="local-models">
      {models.length === 0 && (
        <p
          className="muted small"
          {...field('Models on this computer', 'Download one, or add a GGUF file, from the setup of a new session.')}
        >
          None yet: download one, or add a GGUF file, from the setup of a new session.
        </p>
      )}
      <ul className="providers">
        {models.map((model) => (
          <li key={model.id} className="card row" {...field(model.name, `${model.architecture} ${sourceWords[model.source]} GGUF`)}>
            <strong>{model.name}</strong>
            <span className="muted small">
              {sizeWords(model.sizeBytes)} · {model.architecture}
              {model.trainedContext ? ` · trained for a ${tokensWords(model.trainedContext)} window` : ''} · {sourceWords[model.source]}
            </span>
            <span className="spacer" />
            <button
              type="button"
              aria-label={`Remove ${model.name}`}
              title={model.source === 'downloaded' ? 'Deletes the file' : 'Forgets the model; the file stays'}
              onClick={() =>
                void store.attempt(async () => {
                  await store.call('local-model:remove', { id: model.id });
                  refresh();
                })
              }
            >
              Remove
            </button>
          </li>
        ))}
      </ul>
      {shown.length > 0 && (
        <ul className="providers" aria-label="Downloads">
          {shown.map((view) => (
            <li key={view.id} className="card">
              <strong>{view.name}</strong>
              <DownloadProgress store={store} view={view} />
            </li>
          ))}
        </ul>
      )}
    </SettingsSection>
  );
}
