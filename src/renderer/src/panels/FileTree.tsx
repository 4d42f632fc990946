/*
 * The Files section on the left: the workspace's files folder by folder, each file opening a preview or dragged to the
 * message box.
 */

import { useCallback, useEffect, useState } from 'react';
import { errorMessage } from '../client';
import { workspacePathDragType } from '../composer/dropped-files';
import { useAppState, type AppStore } from '../store';
import { FilePreview } from './FilePreview';

interface Entry {
  readonly path: string;
  readonly name: string;
  readonly directory: boolean;
}

function Folder({
  store,
  sessionId,
  path,
  depth,
  version,
  onOpen,
}: {
  store: AppStore;
  sessionId: string;
  path: string;
  depth: number;
  version: number;
  /** Opens a file's preview. */
  onOpen: (path: string) => void;
}) {
  const [entries, setEntries] = useState<readonly Entry[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  useEffect(() => {
    let live = true;
    store.call('workspace:list', { sessionId, path }).then(
      (result) => live && (setEntries(result.entries), setError(null)),
      (failure: unknown) => live && setError(errorMessage(failure)),
    );
    return () => {
      live = false;
    };
  }, [store, sessionId, path, version]);
  if (error) return <p className="muted small">{error}</p>;
  if (!entries) return null;
  return (
    <ul className="file-tree" role={depth === 0 ? 'tree' : 'group'} aria-label={depth === 0 ? 'Workspace files' : undefined}>
      {entries.map((entry) => {
        const expanded = open.has(entry.path);
        return (
          <li key={entry.path} role="treeitem" aria-expanded={entry.directory ? expanded : undefined} aria-selected={false}>
            {entry.directory ? (
              <button
                type="button"
                className="file-entry folder"
                style={{ paddingLeft: 4 + depth * 12 }}
                onClick={() =>
                  setOpen((current) => {
                    const next = new Set(current);
                    if (next.has(entry.path)) next.delete(entry.path);
                    else next.add(entry.path);
                    return next;
                  })
                }
              >
                {expanded ? '▾' : '▸'} {entry.name}
              </button>
            ) : (
              <button
                type="button"
                className="file-entry file"
                style={{ paddingLeft: 16 + depth * 12 }}
                title={`${entry.path}: click to preview, drag to the message box to attach`}
                draggable
                onDragStart={(event) => {
                  event.dataTransfer.setData(workspacePathDragType, entry.path);
                  event.dataTransfer.setData('text/plain', `@${entry.path}`);
                  event.dataTransfer.effectAllowed = 'copy';
                }}
                onClick={() => onOpen(entry.path)}
              >
                {entry.name}
              </button>
            )}
            {entry.directory && expanded && (
              <Folder store={store} sessionId={sessionId} path={entry.path} depth={depth + 1} version={version} onOpen={onOpen} />
            )}
          </li>
        );
      })}
    </ul>
  );
}

/** The workspace's files, folder by folder, as git sees them (ignored files left out). It refreshes whenever the app knows its files changed. */
export function FileTree({ store, sessionId }: { store: AppStore; sessionId: string }) {
  const workspace = useAppState(store, (state) => state.sessions.find((session) => session.id === sessionId)?.workspacePath ?? null);
  const changes = useAppState(store, (state) => state.filesChanged[sessionId] ?? 0);
  const [manual, setManual] = useState(0);
  const refresh = useCallback(() => setManual((count) => count + 1), []);
  const [previewed, setPreviewed] = useState<string | null>(null);
  if (!workspace) return <p className="muted small">Drop a folder on the window to work in it.</p>;
  return (
    <div className="files">
      <div className="row">
        <span className="muted small" title={workspace}>
          {workspace.split(/[\\/]/).at(-1)}
        </span>
        <button type="button" className="icon" aria-label="Refresh files" title="Refresh" onClick={refresh}>
          ↻
        </button>
      </div>
      <Folder store={store} sessionId={sessionId} path="." depth={0} version={changes + manual} onOpen={setPreviewed} />
      {previewed !== null && <FilePreview store={store} sessionId={sessionId} path={previewed} onClose={() => setPreviewed(null)} />}
    </div>
  );
}
