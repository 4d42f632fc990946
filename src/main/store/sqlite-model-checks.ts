/*
 * What the checks of models found, in SQLite: one report per endpoint and model.
 */

import type { Database, Statement } from 'better-sqlite3';
import { BoundedMap } from '../../shared/bounded-map';
import { modelCheckSchema, type ModelCheck } from '../../shared/domain';
import type { ModelCheckStore } from '../agent/ports/ports';

interface CheckRow {
  provider_id: string;
  model: string;
  checked_at: number;
  report: string;
}

/** A stored report read back; one that no longer reads (damaged, or from a newer app) counts as no check. */
function toCheck(row: CheckRow): ModelCheck | null {
  try {
    const parsed = modelCheckSchema.safeParse(JSON.parse(row.report));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

const keyOf = (providerId: string, model: string): string => `${providerId}\u0000${model}`;

/** Model checks in SQLite: one row per endpoint and model, replaced by each new check. */
export class SqliteModelCheckStore implements ModelCheckStore {
  private readonly statements: {
    upsert: Statement<[CheckRow]>;
    get: Statement<[string, string], CheckRow>;
    all: Statement<[], CheckRow>;
    ofProvider: Statement<[string], CheckRow>;
    forget: Statement<[string]>;
  };
  /**
   * Reports read lately, by endpoint and model (null: none): every request of a model whose tool protocol is `auto`
   * asks, and this process is the only writer, so what it wrote or read stays true until it writes again.
   */
  private readonly known = new BoundedMap<string, ModelCheck | null>({ max: 64 });

  constructor(db: Database) {
    this.statements = {
      upsert: db.prepare(
        'INSERT INTO model_checks (provider_id, model, checked_at, report) VALUES (@provider_id, @model, @checked_at, @report) ON CONFLICT (provider_id, model) DO UPDATE SET checked_at = excluded.checked_at, report = excluded.report',
      ),
      get: db.prepare('SELECT * FROM model_checks WHERE provider_id = ? AND model = ?'),
      all: db.prepare('SELECT * FROM model_checks ORDER BY checked_at DESC, model'),
      ofProvider: db.prepare('SELECT * FROM model_checks WHERE provider_id = ? ORDER BY checked_at DESC, model'),
      forget: db.prepare('DELETE FROM model_checks WHERE provider_id = ?'),
    };
  }

  get(providerId: string, model: string): ModelCheck | null {
    const key = keyOf(providerId, model);
    const known = this.known.get(key);
    if (known !== undefined) return known;
    const row = this.statements.get.get(providerId, model);
    const check = row ? toCheck(row) : null;
    this.known.set(key, check);
    return check;
  }

  list(providerId?: string): ModelCheck[] {
    const rows = providerId === undefined ? this.statements.all.all() : this.statements.ofProvider.all(providerId);
    return rows.map(toCheck).filter((check): check is ModelCheck => check !== null);
  }

  put(check: ModelCheck): void {
    const report = modelCheckSchema.parse(check);
    this.statements.upsert.run({
      provider_id: report.providerId,
      model: report.model,
      checked_at: report.checkedAt,
      report: JSON.stringify(report),
    });
    this.known.set(keyOf(report.providerId, report.model), report);
  }

  forget(providerId: string): void {
    this.statements.forget.run(providerId);
    this.known.clear();
  }
}
