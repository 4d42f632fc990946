/*
 * The list of changed paths in the Changes tab, virtualized: each path with its counts, the sub-agent that changed it
 * and a revert, the open one with its diff by part.
 */

import { useVirtualizer } from '@tanstack/react-virtual';
import { useRef, useState } from 'react';
import type { ChangedFile, FileDiff } from '../../../shared/changes';
import { subAgentName } from '../sub-agents/sub-agent-name';
import { DiffDialog, UnifiedLines } from './DiffDialog';

const changeWords = { create: 'created', modify: 'changed', delete: 'deleted' } as const;
const changeMarks = { create: 'A', modify: 'M', delete: 'D' } as const;

/** "+3 −1", or what stands in for counts (a folder, a binary file). */
function countsOf(file: ChangedFile): string {
  if (file.kind === 'folder') return 'folder';
  if (file.added === null || file.removed === null) return file.binary ? 'binary' : '';
  return `+${file.added} −${file.removed}`;
}

/**
 * The open file's parts: each with its lines and its own revert (when more than one part is left), the parts taken back
 * since marked so, with no revert; and the whole diff over the window, side by side.
 */
function Hunks({ diff, onRevert, disabled }: { diff: FileDiff; onRevert: (hunk: number) => void; disabled: boolean }) {
  const [wide, setWide] = useState(false);
  if (diff.note !== null && diff.hunks.length === 0) return <p className="muted small">{diff.note}</p>;
  const left = diff.hunks.length - diff.reverted.length;
  return (
    <div className="change-hunks">
      <button type="button" className="link small" onClick={() => setWide(true)}>
        Wider view, side by side
      </button>
      {wide && <DiffDialog diff={diff} onClose={() => setWide(false)} />}
      {diff.hunks.map((hunk, index) => {
        const taken = diff.reverted.includes(index);
        return (
          <div key={hunk.header} className={taken ? 'change-hunk reverted' : 'change-hunk'}>
            <div className="row change-hunk-head">
              <code className="diff-hunk small">{hunk.header}</code>
              <span className="spacer" />
              {taken ? (
                <span className="badge" title="This part is no longer in the file: it was taken back.">
                  reverted
                </span>
              ) : (
                left > 1 && (
                  <button type="button" className="link small" disabled={disabled} onClick={() => onRevert(index)}>
                    Revert this part
                  </button>
                )
              )}
            </div>
            {taken ? null : <UnifiedLines hunk={hunk} label={`Part ${index + 1} of ${diff.file.path}`} />}
          </div>
        );
      })}
    </div>
  );
}

/** Where the list starts within the panel that scrolls it (the filter and notices are above it). */
function marginOf(list: HTMLElement | null): number {
  const panel = list?.closest<HTMLElement>('.tab-panel');
  if (!list || !panel) return 0;
  return list.getBoundingClientRect().top - panel.getBoundingClientRect().top + panel.scrollTop;
}

/**
 * The changed paths, each with its counts and a revert; the open one with its diff by part. Only
 * the rows in view are drawn, so a change of thousands of files opens as fast as one of ten.
 */
export function ChangeList({
  files,
  open,
  locked,
  onToggle,
  onRevert,
  onOpenSession,
}: {
  files: readonly ChangedFile[];
  open: { path: string; diff: FileDiff | null } | null;
  locked: boolean;
  onToggle: (path: string) => void;
  onRevert: (path: string, hunk: number | null) => void;
  /** Opens the session of a sub-agent that changed a file. */
  onOpenSession: (sessionId: string) => void;
}) {
  const list = useRef<HTMLUListElement>(null);
  const virtualizer = useVirtualizer({
    count: files.length,
    getScrollElement: () => list.current?.closest<HTMLElement>('.tab-panel') ?? null,
    estimateSize: () => 31,
    overscan: 12,
    getItemKey: (index) => files[index]?.path ?? index,
    scrollMargin: marginOf(list.current),
  });
  const rows = virtualizer.getVirtualItems();
  return (
    <ul className="change-list" aria-label="Changed paths" ref={list} style={{ height: virtualizer.getTotalSize() }}>
      {rows.map((row) => {
        const file = files[row.index];
        if (!file) return null;
        return (
          <li
            key={row.key}
            data-index={row.index}
            data-change={file.change}
            ref={virtualizer.measureElement}
            style={{ transform: `translateY(${row.start - virtualizer.options.scrollMargin}px)` }}
          >
            <div className="change-row">
              <button
                type="button"
                className="change-path"
                aria-expanded={open?.path === file.path}
                title={`${file.path}: ${changeWords[file.change]}`}
                onClick={() => onToggle(file.path)}
              >
                <span className={`change-mark change-${file.change}`} aria-label={changeWords[file.change]}>
                  {changeMarks[file.change]}
                </span>
                <code>{file.kind === 'folder' ? `${file.path}/` : file.path}</code>
              </button>
              <span className="muted small change-counts">{countsOf(file)}</span>
              {file.by?.map((agent) => (
                <button
                  key={agent.sessionId}
                  type="button"
                  className="link small change-by"
                  title={`Changed by ${agent.title}: open its session`}
                  onClick={() => onOpenSession(agent.sessionId)}
                >
                  by {subAgentName(agent.title).replace(/^Sub-agent/, 'sub-agent')}
                </button>
              ))}
              {file.reverted !== 'no' && (
                <span
                  className="badge"
                  title={
                    file.reverted === 'whole'
                      ? 'The change was taken back: the file is as it was before.'
                      : 'Some parts of the change were taken back.'
                  }
                >
                  {file.reverted === 'whole' ? 'reverted' : 'partly reverted'}
                </span>
              )}
              {file.changedSince && (
                <span className="badge" title="The file is no longer as the agent left it: you or a later turn changed it.">
                  changed since
                </span>
              )}
              {file.reverted !== 'whole' && (
                <button
                  type="button"
                  className="link small"
                  disabled={locked || !file.available}
                  aria-label={`Revert ${file.path}`}
                  onClick={() => onRevert(file.path, null)}
                >
                  Revert
                </button>
              )}
            </div>
            {open?.path === file.path &&
              (open.diff ? (
                <Hunks diff={open.diff} disabled={locked} onRevert={(hunk) => onRevert(file.path, hunk)} />
              ) : (
                <p className="muted small">Comparing…</p>
              ))}
          </li>
        );
      })}
    </ul>
  );
}
