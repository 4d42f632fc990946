/*
 * A file's changes in a dialog as wide as the window: unified, or side by side with the lines as they were on the left
 * and as the agent left them on the right; parts taken back since are marked.
 */

import { useState } from 'react';
import type { DiffHunk, FileDiff } from '../../../shared/changes';
import { Modal } from '../chrome/Modal';

/** One row of a side-by-side view: the line before (with its number) and the line after; null where a side has none. */
interface SideRow {
  readonly before: { readonly number: number; readonly text: string; readonly changed: boolean } | null;
  readonly after: { readonly number: number; readonly text: string; readonly changed: boolean } | null;
}

/** A hunk's rows side by side: unchanged lines on both sides, each run of removed lines beside the added lines after it. */
export function sideBySide(hunk: DiffHunk): SideRow[] {
  const start = /^@@ -(\d+)(?:,\d+)? \+(\d+)/.exec(hunk.header);
  let before = Number(start?.[1] ?? 1);
  let after = Number(start?.[2] ?? 1);
  const rows: SideRow[] = [];
  let removed: string[] = [];
  let added: string[] = [];
  const flush = (): void => {
    for (let index = 0; index < Math.max(removed.length, added.length); index += 1) {
      const gone = removed[index];
      const come = added[index];
      rows.push({
        before: gone === undefined ? null : { number: before++, text: gone, changed: true },
        after: come === undefined ? null : { number: after++, text: come, changed: true },
      });
    }
    removed = [];
    added = [];
  };
  for (const line of hunk.lines) {
    if (line.startsWith('-')) removed.push(line.slice(1));
    else if (line.startsWith('+')) added.push(line.slice(1));
    else if (line.startsWith('\\')) continue;
    else {
      flush();
      const text = line.slice(1);
      rows.push({ before: { number: before++, text, changed: false }, after: { number: after++, text, changed: false } });
    }
  }
  flush();
  return rows;
}

/** A hunk's lines, unified, each marked added, removed or the same. */
export function UnifiedLines({ hunk, label }: { hunk: DiffHunk; label: string }) {
  return (
    <pre className="diff" aria-label={label}>
      {hunk.lines.map((line, at) => (
        <span key={at} className={line.startsWith('+') ? 'diff-add' : line.startsWith('-') ? 'diff-remove' : 'diff-same'}>
          {line}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}

function SideBySide({ hunk, label }: { hunk: DiffHunk; label: string }) {
  return (
    <table className="diff diff-sides" aria-label={label}>
      <thead>
        <tr>
          <th colSpan={2}>Before</th>
          <th colSpan={2}>As the agent left it</th>
        </tr>
      </thead>
      <tbody>
        {sideBySide(hunk).map((row, index) => (
          <tr key={index}>
            <td className="diff-number">{row.before?.number ?? ''}</td>
            <td className={row.before?.changed ? 'diff-remove' : row.before ? 'diff-same' : 'diff-none'}>{row.before?.text ?? ''}</td>
            <td className="diff-number">{row.after?.number ?? ''}</td>
            <td className={row.after?.changed ? 'diff-add' : row.after ? 'diff-same' : 'diff-none'}>{row.after?.text ?? ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A file's whole diff over the window, unified or side by side; parts taken back since are marked so. */
export function DiffDialog({ diff, onClose }: { diff: FileDiff; onClose: () => void }) {
  const [sides, setSides] = useState(true);
  const path = diff.file.path;
  return (
    <Modal title={`Changes in ${path}`} closeLabel="Close the changes" className="diff-dialog" onClose={onClose}>
      <div className="row" role="group" aria-label="Layout">
        <button type="button" aria-pressed={sides} onClick={() => setSides(true)}>
          Side by side
        </button>
        <button type="button" aria-pressed={!sides} onClick={() => setSides(false)}>
          Unified
        </button>
      </div>
      {diff.note !== null && <p className="muted small">{diff.note}</p>}
      {diff.hunks.map((hunk, index) => {
        const label = `Part ${index + 1} of ${path}`;
        const taken = diff.reverted.includes(index);
        return (
          <section key={hunk.header} className={taken ? 'change-hunk reverted' : 'change-hunk'} aria-label={label}>
            <div className="row change-hunk-head">
              <code className="diff-hunk small">{hunk.header}</code>
              {taken && <span className="badge">reverted</span>}
            </div>
            {sides ? <SideBySide hunk={hunk} label={`${label}, side by side`} /> : <UnifiedLines hunk={hunk} label={label} />}
          </section>
        );
      })}
    </Modal>
  );
}
