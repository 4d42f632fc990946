/*
 * The sessions list as shown: sessions grouped under their workspace folder's name (those without one under "No
 * folder"), narrowed by the search box, groups folded; and the order that leaves, which the window's keys follow.
 */

import type { Session } from '../../../shared/domain';
import { matchesWords, queryWords } from '../text-match';

/** What the person set on the list: the search typed, and the groups folded (by key). */
export interface SessionListView {
  readonly query: string;
  readonly folded: readonly string[];
}

export const defaultSessionListView: SessionListView = { query: '', folded: [] };

/** One group of the list: a workspace folder, or none. */
export interface SessionGroup {
  /** The folder's path; '' for sessions without one. */
  readonly key: string;
  /** What the group is called: the folder's name (with its parent's when two folders share a name), or "No folder". */
  readonly name: string;
  readonly path: string | null;
  /** The sessions shown, in the list's order. */
  readonly sessions: readonly Session[];
  /** How many of its sessions the search finds (all of them with no search). */
  readonly matching: number;
  readonly folded: boolean;
}

export const noFolderName = 'No folder';

/** The parts of a path, whichever separator it uses, without empty ones. */
const partsOf = (path: string): string[] => path.split(/[\\/]+/).filter((part) => part !== '');

/** A folder's name: the last part of its path (the path itself for a root). */
export function folderName(path: string): string {
  return partsOf(path).at(-1) ?? path;
}

/**
 * The groups of the list, in the order of their most recent session (the list's order), sub-agents left out. A search keeps the sessions
 * whose title or folder's name holds every word typed, and the groups left with any; it shows them whether folded or
 * not. A folded group shows none of its sessions, except the selected one: the selected session is always in the list,
 * found by the search or not.
 */
export function groupSessions(sessions: readonly Session[], selectedId: string | null, view: SessionListView): SessionGroup[] {
  const words = queryWords(view.query);
  const searching = words.length > 0;
  const byKey = new Map<string, Session[]>();
  for (const session of sessions) {
    // Sub-agents' sessions open from their parent's tool cards: the list, its keys and its search leave them out.
    if (session.subAgent) continue;
    const key = session.workspacePath ?? '';
    byKey.set(key, [...(byKey.get(key) ?? []), session]);
  }
  const names = [...byKey.keys()].filter((key) => key !== '').map(folderName);
  const groups: SessionGroup[] = [];
  for (const [key, members] of byKey) {
    const path = key === '' ? null : key;
    const base = path === null ? noFolderName : folderName(path);
    // Two folders of one name are told apart by their parent's.
    const name = path !== null && names.filter((other) => other === base).length > 1 ? partsOf(path).slice(-2).join('/') : base;
    const found = members.filter((session) => matchesWords(words, session.title, path === null ? null : base));
    const folded = !searching && view.folded.includes(key);
    const shown = members.filter((session) => session.id === selectedId || (!folded && found.includes(session)));
    if (searching && shown.length === 0) continue;
    groups.push({ key, name, path, sessions: shown, matching: found.length, folded });
  }
  return groups;
}

/** The sessions in the order the list shows them, group after group. */
export function visibleOrder(groups: readonly SessionGroup[]): Session[] {
  return groups.flatMap((group) => group.sessions);
}

/** The session `step` places from the selected one in the shown order, round; the first (or last) when none is selected. */
export function stepSession(order: readonly Session[], selectedId: string | null, step: 1 | -1): Session | undefined {
  if (order.length === 0) return undefined;
  const current = order.findIndex((session) => session.id === selectedId);
  if (current === -1) return step === 1 ? order[0] : order.at(-1);
  return order[(current + step + order.length) % order.length];
}
