/*
 * The system prompts sent to models, in SQLite, each kept once under the hash of its content.
 */

import { createHash } from 'node:crypto';
import type { Database, Statement } from 'better-sqlite3';
import { BoundedMap } from '../../shared/bounded-map';
import { assembledPromptSchema, type AssembledPrompt } from '../../shared/prompt';
import type { Clock } from '../agent/ports/clock';
import type { PromptRecords } from '../agent/context/prompt-assembly';

/**
 * The system prompts sent, each kept once under the hash of its content: the same prompt sent at every call of a
 * session costs one row, and a call names its prompt by that hash. The last ids saved are remembered, so a prompt
 * sent again is not hashed into the database again.
 */
export class SqlitePromptRecords implements PromptRecords {
  private readonly statements: {
    insert: Statement<[string, string, number]>;
    get: Statement<[string], { body: string }>;
    collect: Statement<[number]>;
  };
  /** The last 16 bodies saved and their ids: most calls send the prompt of the call before. */
  private readonly recent = new BoundedMap<string, string>({ max: 16 });
  /** Prompt objects saved lately, with their body: valid while that body is still in `recent` (so `collect` forgets them too). */
  private readonly recentObjects = new WeakMap<AssembledPrompt, { body: string; id: string }>();

  constructor(
    db: Database,
    private readonly clock: Pick<Clock, 'now'>,
  ) {
    this.statements = {
      // Kept again refreshes its time: a prompt about to be named by a new call is never an hour old to the collector.
      insert: db.prepare(
        'INSERT INTO prompts (id, body, created_at) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET created_at = excluded.created_at',
      ),
      get: db.prepare('SELECT body FROM prompts WHERE id = ?'),
      collect: db.prepare(
        `DELETE FROM prompts WHERE created_at < ? AND id NOT IN (
          SELECT json_extract(payload, '$.promptId') FROM journal WHERE type = 'context_measured' AND json_extract(payload, '$.promptId') IS NOT NULL
        )`,
      ),
    };
  }

  save(prompt: AssembledPrompt): string {
    // The same prompt object again (the runtime passes it again while it is unchanged): its id, without serializing it.
    const same = this.recentObjects.get(prompt);
    if (same !== undefined && this.recent.get(same.body) === same.id) return same.id;
    const body = JSON.stringify(prompt);
    const known = this.recent.get(body);
    if (known !== undefined) {
      this.recentObjects.set(prompt, { body, id: known });
      return known;
    }
    const id = createHash('sha256').update(body).digest('hex').slice(0, 32);
    this.statements.insert.run(id, body, this.clock.now());
    this.recent.set(body, id);
    this.recentObjects.set(prompt, { body, id });
    return id;
  }

  /**
   * Removes the prompts no journal entry names (their sessions were purged). A prompt is kept just before the entry
   * that names it is written, so one saved in the last hour is always kept; the ids remembered are forgotten, so a
   * prompt sent again is kept again.
   */
  collect(): number {
    this.recent.clear();
    return this.statements.collect.run(this.clock.now() - 60 * 60_000).changes;
  }

  get(id: string): AssembledPrompt | null {
    const row = this.statements.get.get(id);
    if (!row) return null;
    const parsed = assembledPromptSchema.safeParse(JSON.parse(row.body));
    return parsed.success ? parsed.data : null;
  }
}
