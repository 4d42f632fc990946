/*
 * What a snapshot of a workspace holds: an entry per path, each file by the hash of its content, and the paths two
 * snapshots differ in.
 */

/** One file in a snapshot; `hash` is null when the file was too large to keep. */
export interface SnapshotEntry {
  readonly hash: string | null;
  readonly size: number;
  readonly mode: number;
}

/** A snapshot's entries by path. */
export type Manifest = Map<string, SnapshotEntry>;

/** The paths whose entry differs between two snapshots, sorted: changed, added or gone. */
export function differences(before: Manifest, after: Manifest): string[] {
  const changed: string[] = [];
  for (const [path, entry] of after) {
    const old = before.get(path);
    if (!old || old.hash !== entry.hash || old.mode !== entry.mode || (entry.hash === null && old.size !== entry.size)) changed.push(path);
  }
  for (const path of before.keys()) if (!after.has(path)) changed.push(path);
  return changed.sort();
}
