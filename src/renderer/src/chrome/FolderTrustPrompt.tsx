/*
 * The trust prompt of a session's folder: what the folder would bring, and the person's answer; once answered
 * "restricted", a bar that says so and opens the prompt again.
 */

import { useEffect, useState } from 'react';
import type { FolderSurvey, FolderTrustDecision, FolderTrustState } from '../../../shared/folder-trust';
import { useAppState, type AppStore } from '../store';

interface Known {
  readonly sessionId: string;
  readonly workspacePath: string;
  readonly state: FolderTrustState;
  readonly survey: FolderSurvey;
}

/** The last part of a path, for a button's words. */
const lastName = (path: string): string => path.split(/[\\/]/).filter(Boolean).at(-1) ?? path;

/**
 * Asks whether the person trusts the authors of the session's folder the first time it is used, showing what it would
 * bring; a folder kept restricted shows a bar instead, from which the prompt opens again. Nothing shows for a trusted
 * folder, or for a session without one.
 */
export function FolderTrustPrompt({ store, sessionId }: { store: AppStore; sessionId: string }) {
  const workspacePath = useAppState(store, (state) => state.sessions.find((session) => session.id === sessionId)?.workspacePath ?? null);
  // Announced whenever a decision changes (here, in Settings, in another window): read again then.
  const decisions = useAppState(store, (state) => state.folderTrust);
  const [known, setKnown] = useState<Known | null>(null);
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (workspacePath === null) return;
    let current = true;
    void store.attempt(async () => {
      const { state, survey } = await store.call('folder-trust:get', { sessionId });
      if (current && state && survey) setKnown({ sessionId, workspacePath, state, survey });
    });
    return () => {
      current = false;
    };
  }, [store, sessionId, workspacePath, decisions]);

  if (workspacePath === null || !known || known.sessionId !== sessionId || known.workspacePath !== workspacePath) return null;
  const { state, survey } = known;
  const release = (path: string, sha256: string): void =>
    void store.attempt(async () => {
      const { state: next, survey: nextSurvey } = await store.call('folder-trust:release', { sessionId, path, sha256 });
      if (next && nextSurvey) setKnown({ ...known, state: next, survey: nextSurvey });
    });
  const held = survey.instructionFiles.filter((file) => file.signs.length > 0 && !file.released);
  if (state.trusted)
    return held.length === 0 ? null : (
      <section className="folder-restricted" role="region" aria-label="Held-back instruction files">
        <span>
          <strong>Held back.</strong> {held.map((file) => file.path).join(', ')} {held.length === 1 ? 'carries' : 'carry'} signs of a prompt
          injection ({held[0]?.signs[0]?.replace(/\.$/, '')}) and {held.length === 1 ? 'is' : 'are'} not given to the model. Read{' '}
          {held.length === 1 ? 'it' : 'them'} in Files first.
        </span>
        {held.map((file) => (
          <button
            key={file.path}
            type="button"
            onClick={() => release(file.path, file.sha256)}
            aria-label={`Let the model have ${file.path}`}
          >
            Let the model have {held.length === 1 ? 'it' : file.path}
          </button>
        ))}
      </section>
    );

  const decide = (decision: FolderTrustDecision): void => {
    setBusy(true);
    void store
      .attempt(async () => {
        const next = await store.call('folder-trust:decide', { sessionId, decision });
        setKnown({ ...known, state: next });
        setOpen(false);
      })
      .finally(() => setBusy(false));
  };

  if (state.decided && !open)
    return (
      <section className="folder-restricted" role="region" aria-label="Restricted mode">
        <span>
          <strong>Restricted mode.</strong> You have not trusted {lastName(state.path)}: its instruction files are not given to the model,
          its own commands are not offered, and every change asks.
        </span>
        <button type="button" onClick={() => setOpen(true)}>
          Review and trust…
        </button>
      </section>
    );

  return (
    <section className="folder-trust" role="region" aria-label="Trust this folder">
      <h3>Do you trust the authors of {lastName(state.path)}?</h3>
      <p className="muted small">
        <code>{state.path}</code> brings files and settings that steer the agent. Until you trust it, it runs in restricted mode: its
        instruction files are shown here but not given to the model, its own commands and check are not run by themselves, and autonomy is
        at most L1, so every change asks.
      </p>
      <FolderBrings survey={survey} onRelease={release} />
      <div className="row">
        <button type="button" className="primary" disabled={busy} onClick={() => decide('trust')}>
          Trust this folder
        </button>
        {state.parent !== null && (
          <button type="button" disabled={busy} onClick={() => decide('trust_parent')} title={state.parent}>
            Trust everything in {lastName(state.parent)}
          </button>
        )}
        <button type="button" disabled={busy} onClick={() => decide('restrict')}>
          Keep restricted
        </button>
      </div>
    </section>
  );
}

/** The list of what a folder brings, by kind; a kind it does not bring is not listed. */
function FolderBrings({ survey, onRelease }: { survey: FolderSurvey; onRelease: (path: string, sha256: string) => void }) {
  const nothing =
    survey.instructionFiles.length +
      survey.mcpServers.length +
      survey.checkCommands.length +
      survey.commands.length +
      survey.gitPrograms.length ===
    0;
  if (nothing) return <p className="small">It brings no instruction files, servers, commands or git programs.</p>;
  return (
    <dl className="folder-brings small">
      {survey.instructionFiles.length > 0 && (
        <>
          <dt>Instruction files</dt>
          <dd>
            <ul>
              {survey.instructionFiles.map((file) => (
                <li key={file.path}>
                  <code>{file.path}</code>
                  {file.scope ? <span className="muted"> ({file.scope})</span> : null}
                  {file.signs.length > 0 && !file.released && (
                    <>
                      <span className="warning" role="note">
                        {' '}
                        ⚠{' '}
                        {file.signs
                          .slice(0, 2)
                          .map((sign) => sign.replace(/\.$/, ''))
                          .join('; ')}
                        : held back, trusted or not, until you let it through
                      </span>{' '}
                      <button
                        type="button"
                        className="link"
                        onClick={() => onRelease(file.path, file.sha256)}
                        aria-label={`Let the model have ${file.path}`}
                      >
                        Let the model have it
                      </button>
                    </>
                  )}
                  {file.signs.length > 0 && file.released && <span className="muted"> (its signs read and let through by you)</span>}
                </li>
              ))}
            </ul>
          </dd>
        </>
      )}
      {survey.mcpServers.length > 0 && (
        <>
          <dt>MCP servers it configures</dt>
          <dd>
            <ul>
              {survey.mcpServers.map((server) => (
                <li key={`${server.from}:${server.name}`}>
                  <strong>{server.name}</strong> <code>{server.launch}</code>{' '}
                  <span className="muted">in {server.from}; not started by the app</span>
                </li>
              ))}
            </ul>
          </dd>
        </>
      )}
      {survey.checkCommands.length > 0 && (
        <>
          <dt>Check commands it suggests</dt>
          <dd>
            <ul>
              {survey.checkCommands.map((check) => (
                <li key={check.command}>
                  <code>{check.command}</code> <span className="muted">from {check.from}</span>
                </li>
              ))}
            </ul>
          </dd>
        </>
      )}
      {survey.commands.length > 0 && (
        <>
          <dt>Its own / commands</dt>
          <dd>{survey.commands.map((command) => `/${command.name}`).join(', ')}</dd>
        </>
      )}
      {survey.gitPrograms.length > 0 && (
        <>
          <dt>Programs its git repository runs</dt>
          <dd>
            <ul>
              {survey.gitPrograms.map((program) => (
                <li key={program.source}>
                  {program.source} <span className="muted">({program.program})</span>
                </li>
              ))}
            </ul>
          </dd>
        </>
      )}
      {survey.notes.length > 0 && (
        <>
          <dt>Could not be read</dt>
          <dd>{survey.notes.join(' ')}</dd>
        </>
      )}
    </dl>
  );
}
