/*
 * The History tab's checkpoints to restore (conversation, files or both, previewed first), the session's tree of
 * versions, and the bar that undoes a restore.
 */

import { useEffect, useMemo, useRef, useState } from 'react';
import type { SessionTreeNode } from '../../../shared/branches';
import { busyStatuses } from '../../../shared/domain';
import type { FilePreview, RestoreMode } from '../../../shared/file-history';
import type { ViewCheckpoint, ViewCommit, ViewMessage } from '../../../shared/session-view';
import { checkpointLabels, firstWords } from './checkpoint-labels';
import { useAppState, type AppStore } from '../store';

const changeLabels = { modify: 'changed back', create: 'brought back', delete: 'deleted' } as const;
const folderLabels = { modify: 'folder', create: 'folder made again', delete: 'folder removed when empty' } as const;

/** "3 files changed", "1 file and 2 folders changed": folders are listed with a trailing `/`. */
function changedWords(paths: readonly string[]): string {
  const folders = paths.filter((path) => path.endsWith('/')).length;
  const files = paths.length - folders;
  const count = (n: number, one: string, many: string): string => (n === 1 ? `1 ${one}` : `${n} ${many}`);
  const parts = [files > 0 ? count(files, 'file', 'files') : null, folders > 0 ? count(folders, 'folder', 'folders') : null];
  return `${parts.filter((part) => part !== null).join(' and ')} changed`;
}

const noCheckpoints: readonly ViewCheckpoint[] = [];
const noMessages: readonly ViewMessage[] = [];
const noCommits: readonly ViewCommit[] = [];

/** Restoring one checkpoint: what to bring back, and a preview of the files that would change. */
function RestoreDialog({
  store,
  sessionId,
  checkpoint,
  step,
  onClose,
}: {
  store: AppStore;
  sessionId: string;
  checkpoint: ViewCheckpoint;
  step: number;
  onClose: () => void;
}) {
  const [mode, setMode] = useState<RestoreMode>('both');
  const [preview, setPreview] = useState<FilePreview | null>(null);
  const [overwrite, setOverwrite] = useState(false);
  const [working, setWorking] = useState(false);
  useEffect(() => {
    let live = true;
    void store.attempt(async () => {
      const result = await store.call('checkpoint:preview', { sessionId, checkpointId: checkpoint.id });
      if (live) setPreview(result);
    });
    return () => {
      live = false;
    };
  }, [store, sessionId, checkpoint.id]);
  const noFiles = preview !== null && preview.snapshotId === null;
  const effectiveMode: RestoreMode = noFiles ? 'conversation' : mode;
  const conflicts = preview?.changes.filter((change) => change.conflict) ?? [];
  const panel = useRef<HTMLDivElement>(null);
  useEffect(() => {
    panel.current?.scrollIntoView({ block: 'nearest' });
  }, []);
  return (
    <div className="dialog" role="dialog" aria-label={`Restore step ${step}`} ref={panel}>
      <h3>Restore step {step}</h3>
      <fieldset className="row" disabled={working}>
        <legend className="muted small">Bring back</legend>
        {(['both', 'conversation', 'files'] as const).map((value) => (
          <label key={value}>
            <input
              type="radio"
              name="restore-mode"
              value={value}
              checked={effectiveMode === value}
              disabled={noFiles && value !== 'conversation'}
              onChange={() => setMode(value)}
            />
            {value === 'both' ? 'Conversation and files' : value === 'conversation' ? 'Conversation only' : 'Files only'}
          </label>
        ))}
      </fieldset>
      {effectiveMode !== 'files' && (
        <p className="muted small">The conversation continues from this step as a new version; the current one is kept.</p>
      )}
      {effectiveMode !== 'conversation' && preview?.headMoved && (
        <p className="notice small" role="note">
          Git's HEAD has moved since this step (then {preview.headMoved.then.slice(0, 7)}, now{' '}
          {preview.headMoved.now?.slice(0, 7) ?? 'no commit'}). A restore brings back files only: HEAD, the branch and .git stay as they
          are, so the restored files will show as changes against the commit checked out.
        </p>
      )}
      {effectiveMode !== 'conversation' && (
        <div aria-label="Files that will change">
          {preview === null ? (
            <p className="muted small">Comparing files…</p>
          ) : preview.changes.length === 0 ? (
            <p className="muted small">The files are already as they were at this step.</p>
          ) : (
            <ul className="file-changes">
              {preview.changes.map((change) => (
                <li key={change.path} data-conflict={change.conflict ? 'true' : 'false'}>
                  <code>{change.kind === 'folder' ? `${change.path}/` : change.path}</code>{' '}
                  <span className="small">{change.kind === 'folder' ? folderLabels[change.change] : changeLabels[change.change]}</span>
                  {change.conflict && (
                    <span className="badge status-failed">
                      {change.kind === 'folder'
                        ? 'made by you since: kept unless you say so'
                        : change.available
                          ? 'you changed it since: kept unless you say so'
                          : 'too large to have been saved: kept'}
                    </span>
                  )}
                  {!change.conflict && !change.available && <span className="badge">too large to have been saved</span>}
                </li>
              ))}
            </ul>
          )}
          {conflicts.length > 0 && (
            <label>
              <input type="checkbox" checked={overwrite} onChange={(event) => setOverwrite(event.target.checked)} /> Also put back the{' '}
              {conflicts.length} file{conflicts.length === 1 ? '' : 's'} changed since
            </label>
          )}
          <p className="muted small">The files are saved first, so this restore can be undone.</p>
        </div>
      )}
      {noFiles && <p className="muted small">No files were saved at this step: the agent had not changed any yet.</p>}
      <div className="row">
        <button type="button" onClick={onClose}>
          Cancel
        </button>
        <button
          type="button"
          className="primary"
          disabled={working || (effectiveMode !== 'conversation' && preview === null)}
          onClick={() => {
            setWorking(true);
            void store
              .changeLine(sessionId, () =>
                store.call('checkpoint:restore', {
                  sessionId,
                  checkpointId: checkpoint.id,
                  mode: effectiveMode,
                  overwriteConflicts: overwrite,
                }),
              )
              .then((result) => {
                setWorking(false);
                if (result) onClose();
              });
          }}
        >
          Restore
        </button>
      </div>
    </div>
  );
}

/** What made each version of a session. */
const versionReasons: Readonly<Record<SessionTreeNode['branch']['reason'], string>> = {
  start: 'First version',
  edit: 'Edited message',
  retry: 'Retried answer',
  restore: 'Restored to an earlier step',
  import: 'Imported',
};

function TreeNode({ store, sessionId, node }: { store: AppStore; sessionId: string; node: SessionTreeNode }) {
  return (
    <li>
      <div className="row">
        <span className={node.active ? 'tree-title active' : 'tree-title'} title={node.title || undefined}>
          {versionReasons[node.branch.reason]}
          {node.title ? `: “${firstWords(node.title, 50)}”` : ''}
        </span>
        <span className="muted small">
          {node.messages === 0 ? 'no messages yet' : node.messages === 1 ? '1 message' : `${node.messages} messages`}
        </span>
        {node.active ? (
          <span className="badge">shown</span>
        ) : (
          <button
            type="button"
            className="link small"
            onClick={() => void store.changeLine(sessionId, () => store.call('branch:switch', { sessionId, branchId: node.branch.id }))}
          >
            Show
          </button>
        )}
      </div>
      {node.children.length > 0 && (
        <ul>
          {node.children.map((child) => (
            <TreeNode key={child.branch.id} store={store} sessionId={sessionId} node={child} />
          ))}
        </ul>
      )}
    </li>
  );
}

/** The session's checkpoints (each can be restored) and its tree of versions. */
export function HistoryContent({ store, sessionId }: { store: AppStore; sessionId: string }) {
  const checkpoints = useAppState(store, (state) => state.views[sessionId]?.checkpoints ?? noCheckpoints);
  const commits = useAppState(store, (state) => state.views[sessionId]?.commits ?? noCommits);
  // Each commit shows after the last step saved before it.
  const commitsAfter = (index: number): readonly ViewCommit[] => {
    const next = checkpoints[index + 1];
    return commits.filter((commit) => commit.at >= (checkpoints[index]?.at ?? 0) && (next === undefined || commit.at < next.at));
  };
  const messages = useAppState(store, (state) => state.views[sessionId]?.messages ?? noMessages);
  const labels = useMemo(() => checkpointLabels(checkpoints, messages), [checkpoints, messages]);
  const lastSeq = useAppState(store, (state) => state.views[sessionId]?.lastSeq ?? -1);
  const [restoring, setRestoring] = useState<{ checkpoint: ViewCheckpoint; step: number } | null>(null);
  // "Restore to here" on a message: opens that checkpoint's restore under its row.
  const request = useAppState(store, (state) => (state.restoreRequest?.sessionId === sessionId ? state.restoreRequest : null));
  useEffect(() => {
    if (!request) return;
    const index = checkpoints.findIndex((checkpoint) => checkpoint.id === request.checkpointId);
    const checkpoint = checkpoints[index];
    if (checkpoint) setRestoring({ checkpoint, step: index + 1 });
    store.requestRestore(null);
  }, [store, request, checkpoints]);
  const [tree, setTree] = useState<SessionTreeNode | null>(null);
  useEffect(() => {
    void store.attempt(async () => setTree(await store.call('session:tree', { sessionId })));
  }, [store, sessionId, lastSeq]);
  return (
    <section className="history" aria-label="History">
      <ol className="timeline" aria-label="Checkpoints">
        {checkpoints.map((checkpoint, index) => (
          <li key={checkpoint.id} aria-label={`Step ${index + 1}`}>
            <div className="timeline-row">
              <span className="step-number muted small">{index + 1}</span>
              <span className="step-label" title={labels[index]}>
                {labels[index]}
              </span>
              <span className="muted small">{new Date(checkpoint.at).toLocaleTimeString()}</span>
              {checkpoint.filesChanged && checkpoint.filesChanged.length > 0 && (
                <span className="small" title={checkpoint.filesChanged.join('\n')}>
                  {changedWords(checkpoint.filesChanged)}
                </span>
              )}
              <button
                type="button"
                className="link small"
                aria-label={`Restore step ${index + 1}`}
                aria-expanded={restoring?.checkpoint.id === checkpoint.id}
                onClick={() => setRestoring(restoring?.checkpoint.id === checkpoint.id ? null : { checkpoint, step: index + 1 })}
              >
                Restore…
              </button>
            </div>
            {/* In place, under its row: a restore far below a long list looked like nothing happened. */}
            {restoring?.checkpoint.id === checkpoint.id && (
              <RestoreDialog
                store={store}
                sessionId={sessionId}
                checkpoint={restoring.checkpoint}
                step={restoring.step}
                onClose={() => setRestoring(null)}
              />
            )}
            {commitsAfter(index).map((commit) => (
              <div key={commit.commit} className="timeline-row timeline-commit" aria-label={`Commit ${commit.commit.slice(0, 7)}`}>
                <span className="step-number muted small">⎇</span>
                <span className="step-label" title={commit.paths.join('\n')}>
                  Committed {commit.commit.slice(0, 7)} on {commit.branch ?? 'a detached HEAD'}: {firstWords(commit.subject, 60)}
                </span>
                <span className="muted small">{new Date(commit.at).toLocaleTimeString()}</span>
                <span className="small">
                  {commit.paths.length} {commit.paths.length === 1 ? 'file' : 'files'}
                </span>
              </div>
            ))}
          </li>
        ))}
      </ol>
      {checkpoints.length === 0 && <p className="muted small">Checkpoints appear here as the agent works.</p>}
      {tree && tree.children.length > 0 && (
        <>
          <h4>Versions</h4>
          <ul className="tree" aria-label="Versions of this session">
            <TreeNode store={store} sessionId={sessionId} node={tree} />
          </ul>
        </>
      )}
    </section>
  );
}

/** After files were restored: what happened, and the way back. */
export function RestoreBar({ store, sessionId }: { store: AppStore; sessionId: string }) {
  const restore = useAppState(store, (state) => state.views[sessionId]?.lastRestore ?? null);
  const fresh = useAppState(store, (state) => state.freshRestores[sessionId] ?? null);
  const busy = useAppState(store, (state) => busyStatuses.has(state.views[sessionId]?.status ?? 'idle'));
  const [dismissed, setDismissed] = useState<string | null>(null);
  // Shown once, for a restore just made here; a revert says so in Changes, with its own Undo.
  if (!restore || restore.of === 'revert' || fresh !== restore.restoreId || dismissed === restore.restoreId) return null;
  const undo = restore.undoOf !== null;
  const edit = restore.of === 'edit';
  return (
    <div className="notice notice-info" role="status" aria-label="Files restored">
      <span>
        {undo ? 'Restore undone' : edit ? 'Files put back as they were before your message' : 'Files restored'}: {restore.written.length}{' '}
        written, {restore.deleted.length} deleted
        {restore.kept.length > 0
          ? `, ${restore.kept.length} kept as you had them (${restore.kept.slice(0, 3).join(', ')}${restore.kept.length > 3 ? '…' : ''})`
          : ''}
        {restore.refused.length > 0
          ? `, ${restore.refused.length} not restored because a link was in the way or the place is protected (${restore.refused.slice(0, 3).join(', ')}${restore.refused.length > 3 ? '…' : ''})`
          : ''}
        .
      </span>
      {!undo && (
        <button
          type="button"
          disabled={busy}
          title={
            busy
              ? 'Stop the running turn first'
              : edit
                ? 'Puts the files back as they were before the edit, and shows the version before it again'
                : 'Puts the files back as they were before the restore, and the conversation with them'
          }
          onClick={() =>
            void store.changeLine(sessionId, () => store.call('checkpoint:undoRestore', { sessionId, restoreId: restore.restoreId }))
          }
        >
          Undo restore
        </button>
      )}
      <button type="button" className="link" aria-label="Dismiss" onClick={() => setDismissed(restore.restoreId)}>
        ×
      </button>
    </div>
  );
}
