/*
 * Memories in SQLite, searched by the words of their text.
 */

import type { Database, Statement } from 'better-sqlite3';
import { InvalidInputError, NotFoundError } from '../../shared/errors';
import { memoryTextSchema, type Memory } from '../../shared/prompt';
import type { Clock } from '../agent/ports/clock';
import { newId } from '../agent/ports/ids';
import { searchTerms, type MemoryStore, type NewMemory } from '../agent/ports/memory';

interface MemoryRow {
  n: number;
  id: string;
  scope: string;
  text: string;
  source: string;
  session_id: string | null;
  created_at: number;
  updated_at: number;
}

const globalScope = 'global';
const workspaceScope = (path: string): string => `workspace:${path}`;

function toMemory(row: MemoryRow): Memory {
  const global = row.scope === globalScope;
  return {
    id: row.id,
    scope: global ? 'global' : 'workspace',
    workspacePath: global ? null : row.scope.slice('workspace:'.length),
    text: row.text,
    source: row.source === 'agent' ? 'agent' : 'person',
    sessionId: row.session_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** A full-text query that matches any of the terms, each quoted so no word is read as an operator; null for none. */
function anyOf(terms: readonly string[], prefix: boolean): string | null {
  if (terms.length === 0) return null;
  return terms.map((term) => `"${term.replaceAll('"', '""')}"${prefix ? '*' : ''}`).join(' OR ');
}

/** The most memories a list shows; a search finds the rest. */
const listLimit = 1_000;

/** The text of a memory, checked: empty or enormous text is refused before anything is written. */
function checkedText(text: string): string {
  const parsed = memoryTextSchema.safeParse(text);
  if (!parsed.success) throw new InvalidInputError(parsed.error.issues[0]?.message ?? 'This is not a memory.');
  return parsed.data;
}

/**
 * Memories in SQLite, with an FTS5 index over their text (Porter stemming, so "tests" finds "test"). A workspace's
 * memories are kept under its path, the global ones apart; the same fact saved again in the same place is not kept
 * twice, only marked as saved again.
 */
export class SqliteMemoryStore implements MemoryStore {
  private changes = 0;
  private readonly statements: {
    insert: Statement<Omit<MemoryRow, 'n'>>;
    get: Statement<[string], MemoryRow>;
    same: Statement<[string, string], MemoryRow>;
    touch: Statement<[number, string]>;
    update: Statement<[string, number, string]>;
    remove: Statement<[string]>;
    list: Statement<[string, string, number], MemoryRow>;
    search: Statement<[string, string, string, number], MemoryRow>;
  };

  constructor(
    db: Database,
    private readonly clock: Pick<Clock, 'now'>,
  ) {
    const ranked = `SELECT memories.* FROM memories_text JOIN memories ON memories.n = memories_text.rowid
      WHERE memories_text MATCH ? AND memories.scope IN (?, ?) ORDER BY bm25(memories_text), memories.updated_at DESC LIMIT ?`;
    this.statements = {
      insert: db.prepare(
        'INSERT INTO memories (id, scope, text, source, session_id, created_at, updated_at) VALUES (@id, @scope, @text, @source, @session_id, @created_at, @updated_at)',
      ),
      get: db.prepare('SELECT * FROM memories WHERE id = ?'),
      same: db.prepare('SELECT * FROM memories WHERE scope = ? AND text = ?'),
      touch: db.prepare('UPDATE memories SET updated_at = ? WHERE id = ?'),
      update: db.prepare('UPDATE memories SET text = ?, updated_at = ? WHERE id = ?'),
      remove: db.prepare('DELETE FROM memories WHERE id = ?'),
      list: db.prepare('SELECT * FROM memories WHERE scope IN (?, ?) ORDER BY updated_at DESC, n DESC LIMIT ?'),
      search: db.prepare(ranked),
    };
  }

  private scopes(workspacePath: string | null): [string, string] {
    return [globalScope, workspacePath === null ? globalScope : workspaceScope(workspacePath)];
  }

  list(workspacePath: string | null, search?: string): Memory[] {
    const [global, workspace] = this.scopes(workspacePath);
    const query = search === undefined ? null : anyOf(searchTerms(search), true);
    if (search !== undefined && search.trim() !== '' && query === null) return [];
    const rows =
      query === null
        ? this.statements.list.all(global, workspace, listLimit)
        : this.statements.search.all(query, global, workspace, listLimit);
    return rows.map(toMemory);
  }

  get(id: string): Memory | null {
    const row = this.statements.get.get(id);
    return row ? toMemory(row) : null;
  }

  add(memory: NewMemory): Memory {
    const text = checkedText(memory.text);
    if (memory.scope === 'workspace' && !memory.workspacePath)
      throw new InvalidInputError('A memory for this workspace needs a workspace: open a folder, or save it for every workspace.');
    const scope = memory.scope === 'global' || memory.workspacePath === null ? globalScope : workspaceScope(memory.workspacePath);
    const now = this.clock.now();
    const same = this.statements.same.get(scope, text);
    this.changes += 1;
    if (same) {
      this.statements.touch.run(now, same.id);
      return toMemory({ ...same, updated_at: now });
    }
    const row = {
      id: newId(now),
      scope,
      text,
      source: memory.source,
      session_id: memory.sessionId,
      created_at: now,
      updated_at: now,
    };
    this.statements.insert.run(row);
    return toMemory({ n: 0, ...row });
  }

  update(id: string, text: string): Memory {
    const checked = checkedText(text);
    const now = this.clock.now();
    this.changes += 1;
    if (this.statements.update.run(checked, now, id).changes === 0) throw new NotFoundError('Memory', id);
    return this.get(id) as Memory;
  }

  remove(id: string): void {
    this.changes += 1;
    if (this.statements.remove.run(id).changes === 0) throw new NotFoundError('Memory', id);
  }

  version(): number {
    return this.changes;
  }

  relevant(workspacePath: string | null, text: string, limit: number): Memory[] {
    const query = anyOf(searchTerms(text), false);
    if (query === null || limit <= 0) return [];
    const [global, workspace] = this.scopes(workspacePath);
    return this.statements.search.all(query, global, workspace, limit).map(toMemory);
  }
}
