/*
 * Line diffs of text: hunks, line counts, and some hunks of a change taken back out of the file as it is now.
 */

import { diffLines, structuredPatch, type StructuredPatch } from 'diff';
import type { DiffHunk } from '../../shared/changes';

/** Past this many changed lines a diff is not worked out (it would stall the main process): "too many changes to show". */
const maxEditLength = 20_000;

/** Whether content looks binary: a NUL byte in its first 8 KB, as git and ripgrep judge. */
export function isBinary(data: Buffer | null): boolean {
  return data !== null && data.subarray(0, 8192).includes(0);
}

/** How many lines a text has, a last line without a newline counted too. */
export function lineCount(text: string): number {
  if (text.length === 0) return 0;
  let count = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count += 1;
  return text.endsWith('\n') ? count : count + 1;
}

/** The diff from one text to another in hunks with three lines of context; null when there are too many changes to work out. */
export function patchOf(before: string, after: string): StructuredPatch | null {
  return structuredPatch('a', 'b', before, after, undefined, undefined, { context: 3, maxEditLength }) ?? null;
}

/** The hunks as the view shows them. */
export function hunksOf(patch: StructuredPatch): DiffHunk[] {
  return patch.hunks.map((hunk) => ({
    header: `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`,
    lines: hunk.lines.filter((line) => !line.startsWith('\\')),
  }));
}

/** Lines added and removed from one text to another, without the hunks (cheaper); null when there are too many changes to work out. */
export function lineCounts(before: string, after: string): { added: number; removed: number } | null {
  const changes = diffLines(before, after, { maxEditLength });
  if (!changes) return null;
  let added = 0;
  let removed = 0;
  for (const change of changes) {
    if (change.added) added += change.count;
    else if (change.removed) removed += change.count;
  }
  return { added, removed };
}

/** Lines added and removed over all hunks. */
export function countsOf(patch: StructuredPatch): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const hunk of patch.hunks)
    for (const line of hunk.lines) {
      if (line.startsWith('+')) added += 1;
      else if (line.startsWith('-')) removed += 1;
    }
  return { added, removed };
}

/** A text's lines, each with its line ending, so putting them back together gives the same bytes. */
function linesOf(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/**
 * Takes some hunks of a change (from `before` to `after`) back out of `current`, the file as it is
 * now, as `git revert` does for part of a commit: each hunk's lines are found where the agent left
 * them, by following the lines that stayed the same from `after` to `current`, and replaced by
 * the lines they had before, byte for byte. What else changed in `current` stays. Null when a
 * hunk's lines are no longer all there, unchanged and together: nothing is guessed, since a hunk
 * could also match an identical block elsewhere.
 */
export function withoutHunks(
  before: string,
  after: string,
  current: string,
  patch: StructuredPatch,
  indices: readonly number[],
): string | null {
  const beforeLines = linesOf(before);
  const currentLines = linesOf(current);
  // Where each line of `after` is in `current`, for the lines that stayed the same.
  const where = new Map<number, number>();
  const changes = diffLines(after, current, { maxEditLength });
  if (!changes) return null;
  let inAfter = 0;
  let inCurrent = 0;
  for (const change of changes) {
    if (change.added) inCurrent += change.count;
    else if (change.removed) inAfter += change.count;
    else for (let k = 0; k < change.count; k += 1) where.set(inAfter + k, inCurrent + k);
    if (!change.added && !change.removed) {
      inAfter += change.count;
      inCurrent += change.count;
    }
  }
  const edits: Array<{ at: number; remove: number; lines: string[] }> = [];
  for (const index of indices) {
    const hunk = patch.hunks[index];
    if (!hunk || hunk.newLines === 0) return null;
    const start = where.get(hunk.newStart - 1);
    if (start === undefined) return null;
    for (let k = 0; k < hunk.newLines; k += 1) if (where.get(hunk.newStart - 1 + k) !== start + k) return null;
    edits.push({ at: start, remove: hunk.newLines, lines: beforeLines.slice(hunk.oldStart - 1, hunk.oldStart - 1 + hunk.oldLines) });
  }
  // From the bottom up, so each place is where it was found.
  for (const edit of edits.sort((a, b) => b.at - a.at)) currentLines.splice(edit.at, edit.remove, ...edit.lines);
  return currentLines.join('');
}
