import { describe, expect, it } from 'vitest';
import { trashRows, type TrashListEntry } from '../../../src/renderer/src/settings/trash-rows';

const entry = (id: string, relativePath: string, deletedAt: number): TrashListEntry => ({
  id,
  originalPath: `/work/${relativePath}`,
  workspacePath: '/work',
  relativePath,
  deletedAt,
  directory: false,
});

describe('the rows of Settings → Trash', () => {
  const notes = entry('e2', 'notes.txt', 2_000);
  const budget = entry('e1', 'budget.csv', 1_000);
  const unreadable = { id: 'e0', error: { code: 'invalid_state' as const, message: 'Trash entry e0 does not open.' } };

  it('says a failed restore at its own entry only, and what does not open after the entries, with why', () => {
    const failures = new Map([['e1', 'budget.csv does not open from the trash. Nothing was restored or removed.']]);
    expect(trashRows([notes, budget, unreadable], failures)).toEqual([
      { kind: 'entry', entry: notes, failure: null },
      { kind: 'entry', entry: budget, failure: 'budget.csv does not open from the trash. Nothing was restored or removed.' },
      { kind: 'unreadable', id: 'e0', message: 'Trash entry e0 does not open.' },
    ]);
  });

  it('shows no failure for an entry that is no longer listed (restored or gone meanwhile)', () => {
    const rows = trashRows([notes], new Map([['e1', 'budget.csv exists again; move it aside before restoring.']]));
    expect(rows).toEqual([{ kind: 'entry', entry: notes, failure: null }]);
  });
});
