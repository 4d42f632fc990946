/*
 * `git status --porcelain=v2 --branch -z`, read: the branch, its upstream and the changed paths.
 */

/** One changed path as git status tells it: the index's letter and the work tree's (`.` for unchanged). */
export interface StatusEntry {
  readonly path: string;
  readonly kind: 'changed' | 'renamed' | 'conflicted' | 'untracked';
  readonly staged: string;
  readonly unstaged: string;
  /** A rename's or copy's old path. */
  readonly from?: string;
  readonly submodule: boolean;
}

export interface ParsedStatus {
  /** The commit checked out; null on a branch with no commit yet. */
  readonly commit: string | null;
  /** The branch's name, or null when HEAD is detached. */
  readonly branch: string | null;
  readonly upstream: string | null;
  readonly ahead: number | null;
  readonly behind: number | null;
  readonly entries: readonly StatusEntry[];
}

/** The fields before the path in each kind of line (`1`, `2`, `u`), counting the kind itself. */
const fieldsBeforePath = { '1': 8, '2': 9, u: 10 } as const;

/** Reads status's NUL-separated records; a record it does not know is skipped (a newer git may add some). */
export function parseStatus(output: string): ParsedStatus {
  const records = output.split('\0');
  let commit: string | null = null;
  let branch: string | null = null;
  let upstream: string | null = null;
  let ahead: number | null = null;
  let behind: number | null = null;
  const entries: StatusEntry[] = [];
  for (let index = 0; index < records.length; index += 1) {
    const record = records[index] ?? '';
    if (record === '') continue;
    if (record.startsWith('# ')) {
      const [key, ...rest] = record.slice(2).split(' ');
      const value = rest.join(' ');
      if (key === 'branch.oid') commit = value === '(initial)' ? null : value;
      else if (key === 'branch.head') branch = value === '(detached)' ? null : value;
      else if (key === 'branch.upstream') upstream = value;
      else if (key === 'branch.ab') {
        const counts = /^\+(\d+) -(\d+)$/.exec(value);
        if (counts) {
          ahead = Number(counts[1]);
          behind = Number(counts[2]);
        }
      }
      continue;
    }
    const kind = record[0];
    if (kind === '?') {
      entries.push({ path: record.slice(2), kind: 'untracked', staged: '.', unstaged: '?', submodule: false });
      continue;
    }
    if (kind !== '1' && kind !== '2' && kind !== 'u') continue;
    const fields = splitFields(record, fieldsBeforePath[kind]);
    if (!fields) continue;
    const [xy = '..', submodule = 'N...'] = [fields.head[1], fields.head[2]];
    const entry = {
      path: fields.path,
      staged: xy[0] ?? '.',
      unstaged: xy[1] ?? '.',
      submodule: submodule.startsWith('S'),
    };
    if (kind === '2') {
      // With -z the old path is the next record.
      index += 1;
      entries.push({ ...entry, kind: 'renamed', from: records[index] ?? '' });
    } else entries.push({ ...entry, kind: kind === 'u' ? 'conflicted' : 'changed' });
  }
  return { commit, branch, upstream, ahead, behind, entries };
}

/** The first `count` space-separated fields, and the rest as the path (which may hold spaces). */
function splitFields(record: string, count: number): { head: string[]; path: string } | null {
  const head: string[] = [];
  let at = 0;
  for (let field = 0; field < count; field += 1) {
    const next = record.indexOf(' ', at);
    if (next < 0) return null;
    head.push(record.slice(at, next));
    at = next + 1;
  }
  return { head, path: record.slice(at) };
}
