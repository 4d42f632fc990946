import { applyPatch, diffLines, reversePatch, structuredPatch, type StructuredPatch } from 'diff';
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

/**
 * Takes some hunks of a change back out of a text that has them (the file as it is now), as
 * `git revert` does for part of a commit; the other hunks, and whatever else changed in the text,
 * stay. Null when a hunk no longer matches the text.
 */
export function withoutHunks(text: string, patch: StructuredPatch, indices: readonly number[]): string | null {
  const chosen: StructuredPatch = { ...patch, hunks: patch.hunks.filter((_, index) => indices.includes(index)) };
  const result = applyPatch(text, reversePatch(chosen));
  return result === false ? null : result;
}
