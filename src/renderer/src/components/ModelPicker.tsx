import { useEffect, useState } from 'react';
import type { ModelInfo } from '../../../shared/domain';
import { useAppState, type AppStore } from '../store';
import { ModelDoctorBadge } from './ModelDoctor';

/** Endpoint and model of a session; the model list comes from the endpoint, and any name can be typed. */
export function ModelPicker({ store, sessionId }: { store: AppStore; sessionId: string }) {
  const providers = useAppState(store, (state) => state.providers);
  const session = useAppState(store, (state) => state.sessions.find((candidate) => candidate.id === sessionId));
  const [providerId, setProviderId] = useState(session?.model?.providerId ?? providers[0]?.id ?? '');
  const [model, setModel] = useState(session?.model?.model ?? '');
  const [models, setModels] = useState<ModelInfo[]>([]);

  useEffect(() => {
    setProviderId(session?.model?.providerId ?? providers[0]?.id ?? '');
    setModel(session?.model?.model ?? '');
  }, [session?.model?.providerId, session?.model?.model, providers]);

  useEffect(() => {
    if (!providerId) return;
    let live = true;
    store.call('provider:models', { providerId }).then(
      (found) => live && setModels(found),
      () => live && setModels([]),
    );
    return () => {
      live = false;
    };
  }, [store, providerId]);

  const save = async (nextProvider: string, nextModel: string): Promise<void> => {
    if (!nextProvider || nextModel.trim() === '') return;
    if (session?.model?.providerId === nextProvider && session.model.model === nextModel) return;
    const updated = await store.attempt(() =>
      store.call('session:setModel', { sessionId, model: { providerId: nextProvider, model: nextModel.trim() } }),
    );
    if (updated) store.upsertSession(updated);
  };

  if (providers.length === 0) return <span className="muted small">No model endpoint yet: add one in Settings.</span>;
  return (
    <div className="model-picker">
      <select
        aria-label="Model endpoint"
        value={providerId}
        onChange={(event) => {
          setProviderId(event.target.value);
          setModel('');
        }}
      >
        {providers.map((provider) => (
          <option key={provider.id} value={provider.id}>
            {provider.name}
          </option>
        ))}
      </select>
      <input
        aria-label="Model"
        list={`models-${sessionId}`}
        placeholder="model name"
        value={model}
        maxLength={300}
        onChange={(event) => {
          setModel(event.target.value);
          if (models.some((known) => known.id === event.target.value)) void save(providerId, event.target.value);
        }}
        onBlur={() => void save(providerId, model)}
        onKeyDown={(event) => {
          if (event.key === 'Enter') void save(providerId, model);
        }}
      />
      <datalist id={`models-${sessionId}`}>
        {models.map((known) => (
          <option key={known.id} value={known.id}>
            {known.contextLength ? `${known.id} (${known.contextLength.toLocaleString()} tokens)` : known.id}
          </option>
        ))}
      </datalist>
      {session?.model && <ModelDoctorBadge store={store} providerId={session.model.providerId} model={session.model.model} />}
    </div>
  );
}
