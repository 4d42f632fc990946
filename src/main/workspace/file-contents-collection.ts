/*
 * Removes the saved file contents that no snapshot refers to any longer.
 */

import type { Database } from 'better-sqlite3';

/** What one collection removed: how many saved contents, and their bytes. */
export interface Collected {
  readonly removed: number;
  readonly bytes: number;
}

/**
 * The contents no snapshot refers to. Every hash a snapshot's whole list holds is written in the manifest of that
 * snapshot or of one it is a delta of, so looking at every manifest row finds them all. A damaged manifest makes
 * `json_each` fail, and then nothing is removed.
 */
const unreferenced = `
  FROM file_blobs WHERE hash NOT IN (
    SELECT json_extract(entry.value, '$[1].hash') FROM file_snapshots AS snapshot, json_each(snapshot.manifest) AS entry
    WHERE json_extract(entry.value, '$[1].hash') IS NOT NULL
  )`;

/**
 * Removes saved file contents that no remaining snapshot refers to: those of purged sessions, and those a capture
 * saved before the app stopped and never named. The count and the removal are one transaction, so a crash midway
 * leaves everything as it was. A capture saves a file's content before the snapshot that names it; while one is
 * running (`capturing`), its contents would look unreferenced, so nothing is collected and null says so.
 */
export function collectFileContents(db: Database, capturing: () => boolean): Collected | null {
  if (capturing()) return null;
  const count = db.prepare<[], { removed: number; bytes: number }>(
    `SELECT COUNT(*) AS removed, COALESCE(SUM(size), 0) AS bytes ${unreferenced}`,
  );
  const remove = db.prepare(`DELETE ${unreferenced}`);
  return db.transaction((): Collected => {
    const found = count.get() ?? { removed: 0, bytes: 0 };
    if (found.removed > 0) remove.run();
    return found;
  })();
}
