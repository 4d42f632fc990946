/*
 * The changes between two file snapshots, shown as diffs and reverted on disk, whole or hunk by hunk.
 */

import type { StructuredPatch } from 'diff';
import { WorkbenchError } from '../../shared/errors';
import type { ChangedFile, FileDiff } from '../../shared/changes';
import type { ChangeRange, FileChanges } from '../agent/ports/ports';
import { folderHash, listsFolders, type SnapshotEntry, type SqliteFileHistory } from './file-history';
import { PathRefusedError } from './path-text';
import { countsOf, hunksOf, isBinary, lineCount, lineCounts, patchOf, withoutHunks } from './text-diff';
import { losslessText } from './utf8-text';
import { WorkspaceFiles } from './workspace-files';

/** Files larger than this are listed but not compared line by line. */
const maxComparedBytes = 1024 * 1024;

type Outcome = { written: string[]; deleted: string[]; kept: string[]; refused: string[] };

/** One path's two ends, as two snapshots list them. */
interface Ends {
  readonly key: string;
  readonly path: string;
  readonly kind: 'file' | 'folder';
  readonly before: SnapshotEntry | undefined;
  readonly after: SnapshotEntry | undefined;
}

/**
 * The changes between two file snapshots, from the content they saved (`SqliteFileHistory`), and
 * their revert on disk through the same link-safe writes a restore uses.
 */
export class SnapshotChanges implements FileChanges {
  constructor(
    private readonly history: SqliteFileHistory,
    /** Folders never touched, such as the app's own data folder when it lies in a workspace. */
    private readonly excluded: readonly string[] = [],
  ) {}

  async compare(range: ChangeRange): Promise<ChangedFile[]> {
    const ends = this.endsOf(range);
    const now = await this.history.entriesNow(
      range.workspacePath,
      ends.map((item) => item.key),
    );
    return Promise.all(
      ends.map(async (item) => {
        const entry = now.get(item.key) ?? null;
        const file = this.describe(item, entry, false).file;
        if (!file.changedSince) return file;
        const taken = await this.takenBack(range.workspacePath, item, entry);
        return { ...file, changedSince: taken.other, reverted: taken.reverted };
      }),
    );
  }

  async diff(range: ChangeRange, path: string): Promise<FileDiff> {
    const item = this.one(range, path);
    const now = (await this.history.entriesNow(range.workspacePath, [item.key])).get(item.key) ?? null;
    const { file, patch, note } = this.describe(item, now, true);
    const hunks = patch ? hunksOf(patch) : [];
    if (!file.changedSince) return { file, hunks, note, reverted: [] };
    const taken = await this.takenBack(range.workspacePath, item, now);
    return { file: { ...file, changedSince: taken.other, reverted: taken.reverted }, hunks, note, reverted: [...taken.hunks] };
  }

  async revert(range: ChangeRange, path: string, asked: readonly number[] | null): Promise<Outcome> {
    let hunks = asked;
    const item = this.one(range, path);
    const now = (await this.history.entriesNow(range.workspacePath, [item.key])).get(item.key) ?? null;
    const files = new WorkspaceFiles(range.workspacePath, { protectedRoots: this.excluded });
    const outcome: Outcome = { written: [], deleted: [], kept: [], refused: [] };
    if (item.kind === 'folder') {
      if (item.after) guarded(outcome, item.key, () => (files.removeEmptyFolder(item.path) ? 'deleted' : 'kept'));
      else guarded(outcome, item.key, () => (files.putFolder(item.path) ? 'written' : 'kept'));
      return outcome;
    }
    const { patch, texts, note } = this.describe(item, now, true);
    // Parts already taken back are left out of a whole revert: the rest of the change goes.
    const taken = hunks === null && patch && !sameEntry(now, item.after) ? await this.takenBack(range.workspacePath, item, now) : null;
    // Taken back already, byte for byte: nothing to do. (The same text in another entry, an emptied file where there was
    // none, goes on below and is put back exactly.)
    if (taken && !taken.other && taken.reverted === 'whole' && sameEntry(now, item.before)) return outcome;
    if (taken && !taken.other && taken.reverted === 'part' && patch)
      hunks = patch.hunks.map((_, index) => index).filter((index) => !taken.hunks.includes(index));
    if (hunks !== null && patch === null)
      throw new WorkbenchError(
        'invalid_state',
        `${path} can be reverted only as a whole: ${(note ?? 'it cannot be compared line by line').toLowerCase()}`,
      );
    const whole = hunks === null || (patch !== null && patch.hunks.every((_, index) => hunks.includes(index)));
    if (hunks !== null && (patch === null || hunks.some((index) => index >= patch.hunks.length)))
      throw new WorkbenchError('invalid_input', `The changes of ${path} have no such part; look at them again.`);
    if (whole && sameEntry(now, item.after)) {
      // The file is as the agent left it: put back exactly what was there before, bytes and mode.
      const before = item.before;
      if (!before) guarded(outcome, path, () => (files.removeFile(path) ? 'deleted' : 'kept'));
      else {
        const data = before.hash === null ? null : this.history.content(before.hash);
        if (!data) throw new WorkbenchError('invalid_state', `${path} was too large to be saved, so it cannot be put back.`);
        guarded(outcome, path, () => (files.put(path, data, before.mode & 0o777), 'written'));
      }
      return outcome;
    }
    // Changed since: take the hunks back out of the text as it is now, leaving the rest of it as it is.
    const text = now && now.hash !== null ? await this.readNow(range.workspacePath, path) : null;
    if (!patch || !texts || text === null) throw changedSince(path, 'it changed since and cannot be compared line by line');
    const result = withoutHunks(texts.before, texts.after, text, patch, hunks ?? patch.hunks.map((_, index) => index));
    if (result === null) throw changedSince(path, 'the lines of this change are no longer all there as the agent left them');
    if (!item.before && result === '') guarded(outcome, path, () => (files.removeFile(path) ? 'deleted' : 'kept'));
    else guarded(outcome, path, () => (files.put(path, Buffer.from(result), (now?.mode ?? 0o644) & 0o777), 'written'));
    return outcome;
  }

  /** Every path that differs between the two snapshots, folders only when both list them. */
  private endsOf(range: ChangeRange): Ends[] {
    const base = this.history.listOf(range.baseId);
    const end = this.history.listOf(range.endId);
    const folders = base.has(listsFolders) && end.has(listsFolders);
    const ends: Ends[] = [];
    for (const key of [...new Set([...base.keys(), ...end.keys()])].sort()) {
      const folder = key.endsWith('/');
      if (key === listsFolders || (folder && !folders) || (range.only && !range.only.has(key))) continue;
      const before = base.get(key);
      const after = end.get(key);
      if (before && after && before.hash !== null && before.hash === after.hash && before.mode === after.mode) continue;
      if (before && after && before.hash === null && after.hash === null && before.size === after.size) continue;
      ends.push({ key, path: folder ? key.slice(0, -1) : key, kind: folder ? 'folder' : 'file', before, after });
    }
    return ends;
  }

  private one(range: ChangeRange, path: string): Ends {
    const item = this.endsOf(range).find((candidate) => candidate.path === path);
    if (!item) throw new WorkbenchError('not_found', `${path} is not among the changes; look at them again.`);
    return item;
  }

  /** A path's change with its line counts, and its patch when `withPatch` (or when the counts need one). */
  private describe(
    item: Ends,
    now: SnapshotEntry | null,
    withPatch: boolean,
  ): { file: ChangedFile; patch: StructuredPatch | null; note: string | null; texts?: { before: string; after: string } } {
    const change = item.before && item.after ? 'modify' : item.after ? 'create' : 'delete';
    const changedSince = !sameEntry(now, item.after);
    const base = { path: item.path, kind: item.kind, change, changedSince, reverted: 'no' } as const;
    if (item.kind === 'folder')
      return {
        file: { ...base, added: null, removed: null, binary: false, available: true },
        patch: null,
        note: 'A folder: nothing inside it to compare.',
      };
    const available = item.before?.hash !== null && item.after?.hash !== null;
    const before = item.before?.hash ? this.history.content(item.before.hash) : null;
    const after = item.after?.hash ? this.history.content(item.after.hash) : null;
    const binary = isBinary(before) || isBinary(after);
    const tooLarge = (before?.length ?? 0) > maxComparedBytes || (after?.length ?? 0) > maxComparedBytes;
    const plain = { ...base, binary, available };
    if (!available)
      return { file: { ...plain, added: null, removed: null }, patch: null, note: 'Too large to have been saved: it cannot be shown.' };
    if (binary) return { file: { ...plain, added: null, removed: null }, patch: null, note: 'A binary file: its content is not shown.' };
    if (tooLarge) return { file: { ...plain, added: null, removed: null }, patch: null, note: 'Too large to compare line by line.' };
    // Decoded only when that gives the same bytes back: a part revert writes the text, so nothing may be lost in it.
    const beforeText = before ? losslessText(before) : '';
    const afterText = after ? losslessText(after) : '';
    if (beforeText === null || afterText === null)
      return { file: { ...plain, added: null, removed: null }, patch: null, note: 'Not UTF-8 text: it can be reverted only as a whole.' };
    // A list needs only the counts: a file made or removed whole is counted by its lines, a changed one without its hunks.
    if (!withPatch && (!item.before || !item.after)) {
      const lines = lineCount(item.after ? afterText : beforeText);
      return { file: { ...plain, added: item.after ? lines : 0, removed: item.after ? 0 : lines }, patch: null, note: null };
    }
    if (!withPatch) {
      const counts = lineCounts(beforeText, afterText);
      return { file: { ...plain, added: counts?.added ?? null, removed: counts?.removed ?? null }, patch: null, note: null };
    }
    const patch = patchOf(beforeText, afterText);
    if (!patch) return { file: { ...plain, added: null, removed: null }, patch: null, note: 'Too many changes to show line by line.' };
    const note = patch.hunks.length === 0 ? 'Only the file’s mode changed.' : null;
    return { file: { ...plain, ...countsOf(patch) }, patch, note, texts: { before: beforeText, after: afterText } };
  }

  /**
   * How much of a change that is no longer on disk as the agent left it was taken back (by a revert, or by hand): all
   * of it (the path is as it was before), some of its parts (the file is exactly the agent's with those parts taken
   * out), or none; `other` when the file holds something else too (the person or a later turn changed it).
   */
  private async takenBack(
    workspacePath: string,
    item: Ends,
    now: SnapshotEntry | null,
  ): Promise<{ reverted: 'no' | 'part' | 'whole'; hunks: readonly number[]; other: boolean }> {
    const { patch, texts } = this.describe(item, now, true);
    const all = patch ? patch.hunks.map((_, index) => index) : [];
    if (sameEntry(now, item.before)) return { reverted: 'whole', hunks: all, other: false };
    const changed = { reverted: 'no' as const, hunks: [], other: true };
    if (!patch || !texts || !now || now.hash === null || item.kind === 'folder') return changed;
    const text = await this.readNow(workspacePath, item.path);
    if (text === null) return changed;
    // A part is gone when its lines are no longer where the agent left them; the rest must be exactly the agent's.
    const gone = all.filter((index) => withoutHunks(texts.before, texts.after, text, patch, [index]) === null);
    if (gone.length === 0 || withoutHunks(texts.before, texts.after, texts.after, patch, gone) !== text) return changed;
    return { reverted: gone.length === all.length ? 'whole' : 'part', hunks: gone, other: false };
  }

  /** The file on disk now as text, whole: null when it is larger than what is compared, binary, or not UTF-8. */
  private async readNow(workspacePath: string, path: string): Promise<string | null> {
    const reader = new WorkspaceFiles(workspacePath).reader();
    try {
      // One byte past the limit tells a file that fits from one that does not: never a cut text written back.
      const data = await reader.readFile(path, maxComparedBytes + 1);
      if (!data || data.length > maxComparedBytes || isBinary(data)) return null;
      return losslessText(data);
    } finally {
      reader.close();
    }
  }
}

function sameEntry(now: SnapshotEntry | null, saved: SnapshotEntry | undefined): boolean {
  if (!now || !saved) return !now && !saved;
  if (saved.hash === folderHash || now.hash === folderHash) return saved.hash === now.hash;
  // Too large to be hashed either time: the size is all there is to go by.
  if (saved.hash === null && now.hash === null) return saved.size === now.size;
  return saved.hash !== null && saved.hash === now.hash;
}

function changedSince(path: string, why: string): WorkbenchError {
  return new WorkbenchError(
    'invalid_state',
    `${path} cannot be reverted here: ${why}. Restore a checkpoint from History to bring it back whole.`,
  );
}

/** Makes one change, listing the path where it went; a path that cannot be reached safely is listed as refused. */
function guarded(outcome: Outcome, path: string, change: () => 'written' | 'deleted' | 'kept'): void {
  try {
    outcome[change()].push(path);
  } catch (error) {
    if (!(error instanceof PathRefusedError)) throw error;
    outcome.refused.push(path);
  }
}
