import { describe, expect, it } from 'vitest';
import type { Session } from '../../../src/shared/domain';
import {
  defaultSessionListView,
  folderName,
  groupSessions,
  stepSession,
  visibleOrder,
  type SessionListView,
} from '../../../src/renderer/src/chrome/session-groups';

let clock = 100;
const session = (id: string, title: string, workspacePath: string | null): Session => ({
  id,
  title,
  workspacePath,
  model: null,
  autonomy: 'L1',
  status: 'idle',
  createdAt: clock,
  updatedAt: (clock -= 1),
});

/** Newest first, as the store keeps them. */
const sessions = [
  session('s1', 'Tidy the tests', '/work/alpha'),
  session('s2', 'Write the docs', '/work/beta'),
  session('s3', 'Ask about owls', null),
  session('s4', 'Fix the login', '/work/alpha'),
];
const view = (change: Partial<SessionListView>): SessionListView => ({ ...defaultSessionListView, ...change });
const titles = (order: readonly Session[]): string[] => order.map((item) => item.title);

describe('the sessions list grouped by folder', () => {
  it('groups sessions under their folder’s name in the order of their newest session, those without one under No folder', () => {
    const groups = groupSessions(sessions, null, defaultSessionListView);
    expect(groups.map((group) => [group.name, titles(group.sessions), group.matching])).toEqual([
      ['alpha', ['Tidy the tests', 'Fix the login'], 2],
      ['beta', ['Write the docs'], 1],
      ['No folder', ['Ask about owls'], 1],
    ]);
    expect(titles(visibleOrder(groups))).toEqual(['Tidy the tests', 'Fix the login', 'Write the docs', 'Ask about owls']);
  });

  it('tells apart two folders of one name by their parent, whichever separator the path uses', () => {
    const twins = [session('a', 'One', '/home/me/app'), session('b', 'Two', 'C:\\work\\app\\'), session('c', 'Three', '/srv/site')];
    expect(groupSessions(twins, null, defaultSessionListView).map((group) => group.name)).toEqual(['me/app', 'work/app', 'site']);
    expect(folderName('/')).toBe('/');
  });

  it('a folded group shows none of its sessions but the selected one, and the order skips them', () => {
    const folded = view({ folded: ['/work/alpha'] });
    expect(titles(visibleOrder(groupSessions(sessions, 's2', folded)))).toEqual(['Write the docs', 'Ask about owls']);
    const groups = groupSessions(sessions, 's4', folded);
    expect(groups[0]).toMatchObject({ name: 'alpha', folded: true, matching: 2 });
    expect(titles(visibleOrder(groups))).toEqual(['Fix the login', 'Write the docs', 'Ask about owls']);
  });

  it('a search keeps the sessions whose title or folder holds every word, folded or not, and the selected one', () => {
    expect(titles(visibleOrder(groupSessions(sessions, null, view({ query: 'the', folded: ['/work/alpha'] }))))).toEqual([
      'Tidy the tests',
      'Fix the login',
      'Write the docs',
    ]);
    expect(titles(visibleOrder(groupSessions(sessions, null, view({ query: 'ALPHA login' }))))).toEqual(['Fix the login']);
    const found = groupSessions(sessions, 's3', view({ query: 'docs' }));
    expect(found.map((group) => [group.name, titles(group.sessions), group.matching])).toEqual([
      ['beta', ['Write the docs'], 1],
      ['No folder', ['Ask about owls'], 0],
    ]);
    // "No folder" is what the group is called, not a folder's name to find.
    expect(groupSessions(sessions, null, view({ query: 'folder' }))).toEqual([]);
  });

  it('steps through the order shown, round, from the first or the last when nothing is selected', () => {
    const order = visibleOrder(groupSessions(sessions, 's1', defaultSessionListView));
    expect(stepSession(order, 's1', 1)?.title).toBe('Fix the login');
    expect(stepSession(order, 's3', 1)?.title).toBe('Tidy the tests');
    expect(stepSession(order, 's1', -1)?.title).toBe('Ask about owls');
    expect(stepSession(order, null, 1)?.title).toBe('Tidy the tests');
    expect(stepSession(order, null, -1)?.title).toBe('Ask about owls');
    expect(stepSession([], 's1', 1)).toBeUndefined();
  });
});
