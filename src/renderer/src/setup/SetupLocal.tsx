/*
 * The model setup's "Run a model on this computer": recommended models to download, a GGUF file to pick, and models of
 * Ollama and LM Studio.
 */

import { useEffect, useState } from 'react';
import type { LocalModel, MachineInfo } from '../../../shared/local-models';
import { sizeWords, tooLargeReason, type CatalogueChoice, type DownloadView, type ModelCandidate } from '../../../shared/model-catalogue';
import { errorMessage } from '../client';
import { fitWords, machineWords, tokensWords } from '../models/local-model-words';
import type { AppStore } from '../store';
import { DownloadProgress, useModelDownloads } from '../models/DownloadProgress';

/** One recommended model: what it takes, whether it fits here, and its download. */
function CatalogueRow({
  store,
  machine,
  choice,
  download,
  onDownload,
}: {
  store: AppStore;
  machine: MachineInfo;
  choice: CatalogueChoice;
  download: DownloadView | undefined;
  onDownload: () => void;
}) {
  const busy = download !== undefined && download.state !== 'failed' && download.state !== 'done';
  // A model too large for this machine is not offered for download, and the row says why.
  const tooLarge = choice.fit === 'too_large' && !choice.downloaded;
  const reasonId = `too-large-${choice.id}`;
  return (
    <li className={choice.recommended ? 'setup-model picked' : 'setup-model'} aria-label={choice.name}>
      <div className="setup-model-name">
        <strong>{choice.name}</strong>
        {choice.recommended && <span className="badge">Recommended</span>}
        <span className={`small fit-${choice.fit}`}> · {fitWords(choice.fit)}</span>
      </div>
      <p className="muted small">
        {choice.summary} {sizeWords(choice.sizeBytes)} on disk · needs {sizeWords(choice.memoryBytes)} of memory · runs with a{' '}
        {tokensWords(choice.runContext)} window (trained for {tokensWords(choice.trainedContext)})
      </p>
      {tooLarge && (
        <p className="small fit-too_large" id={reasonId}>
          Not offered: it {tooLargeReason(choice.memoryBytes, machine)}.
        </p>
      )}
      {!busy && (
        <button
          type="button"
          className={choice.recommended ? 'primary' : undefined}
          disabled={choice.downloaded || tooLarge}
          aria-label={`Download ${choice.name}`}
          aria-describedby={tooLarge ? reasonId : undefined}
          onClick={onDownload}
        >
          {choice.downloaded ? 'Downloaded' : 'Download'}
        </button>
      )}
      {download && <DownloadProgress store={store} view={download} />}
    </li>
  );
}

/**
 * "Run a model on this computer": the recommended models matched to this machine with Download (progress, pause,
 * resume, cancel), a GGUF file the person picks, and the models of Ollama and LM Studio found here. `onAdded` hears the
 * model added, to make it the session's.
 */
export function SetupLocal({ store, onAdded, onEngage }: { store: AppStore; onAdded: (modelId: string) => void; onEngage: () => void }) {
  const [catalogue, setCatalogue] = useState<{ machine: MachineInfo; choices: CatalogueChoice[] } | null>(null);
  const [candidates, setCandidates] = useState<ModelCandidate[]>([]);
  const [failure, setFailure] = useState<string | null>(null);
  const [adding, setAdding] = useState(false);
  const refresh = (): void =>
    void store.attempt(async () => {
      setCatalogue(await store.call('local-model:catalogue', {}));
      setCandidates(await store.call('local-model:candidates', {}));
    });
  // Downloads that finish while the setup is shown become the session's model.
  const downloads = useModelDownloads(store, (view) => {
    refresh();
    if (view.modelId !== null) onAdded(view.modelId);
  });
  useEffect(refresh, [store]);

  const added = (model: LocalModel): void => {
    onAdded(model.id);
  };
  const run = async (action: () => Promise<void>, what: string): Promise<void> => {
    onEngage();
    setFailure(null);
    setAdding(true);
    try {
      await action();
    } catch (error) {
      setFailure(`${what}: ${errorMessage(error)}`);
    } finally {
      setAdding(false);
    }
  };
  const download = (choice: CatalogueChoice): Promise<void> =>
    run(async () => void (await store.call('local-model:download', { id: choice.id })), `${choice.name} could not be downloaded`);
  const pickFile = (): Promise<void> =>
    run(async () => {
      const { path } = await store.call('local-model:pickFile', {});
      if (path !== null) added(await store.call('local-model:addFile', { path }));
    }, 'The file could not be added');
  const addCandidate = (candidate: ModelCandidate): Promise<void> =>
    run(async () => added(await store.call('local-model:addCandidate', { path: candidate.path })), `${candidate.name} could not be added`);

  return (
    <section className="setup-local" aria-label="Run a model on this computer">
      <h3>Run a model on this computer</h3>
      <p className="small">
        No server needed: the app runs the model itself, and works with no network once it is on disk.
        {catalogue && ` ${machineWords(catalogue.machine)}`}
      </p>
      {catalogue && (
        <ul className="setup-models" aria-label="Recommended models">
          {catalogue.choices.map((choice) => (
            <CatalogueRow
              key={choice.id}
              store={store}
              machine={catalogue.machine}
              choice={choice}
              download={downloads.get(choice.id)}
              onDownload={() => void download(choice)}
            />
          ))}
        </ul>
      )}
      <div className="row">
        <button type="button" disabled={adding} onClick={() => void pickFile()}>
          Use a model file…
        </button>
        <span className="muted small">A GGUF file you have; it stays where it is.</span>
      </div>
      {candidates.length > 0 && (
        <ul className="setup-models" aria-label="Models of other apps on this computer">
          {candidates.map((candidate) => (
            <li key={candidate.path} className="setup-model">
              <span className="setup-model-name">
                {candidate.name}{' '}
                <span className="muted small">
                  · {candidate.source === 'ollama' ? 'Ollama' : 'LM Studio'} · {sizeWords(candidate.sizeBytes)}
                </span>
              </span>
              <button
                type="button"
                disabled={adding || candidate.added}
                aria-label={`Add ${candidate.name}`}
                onClick={() => void addCandidate(candidate)}
              >
                {candidate.added ? 'Added' : 'Add'}
              </button>
            </li>
          ))}
        </ul>
      )}
      {failure && (
        <p className="setup-model-problem small" role="alert">
          {failure}
        </p>
      )}
    </section>
  );
}
