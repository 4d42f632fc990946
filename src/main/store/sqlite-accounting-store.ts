/*
 * The model and tool calls of every session in SQLite, one row each, and their totals per session.
 */

import type { Database, Statement } from 'better-sqlite3';
import type { AccountingStore, ModelCallRecord, SessionTotals, ToolCallRecord, TotalsScope } from '../agent/ports/accounting';

interface TotalsRow {
  model_calls: number;
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_tokens: number | null;
  cache_write_tokens: number | null;
  model_ms: number | null;
  cost: number | null;
  unknown_costs: number | null;
  largest_prompt: number | null;
}

interface ToolTotalsRow {
  tool_calls: number;
  failures: number | null;
  tool_ms: number | null;
}

/** Model and tool calls in SQLite: one row each, summed per session. */
const modelSums =
  'COUNT(*) AS model_calls, SUM(input_tokens) AS input_tokens, SUM(output_tokens) AS output_tokens, SUM(cache_read_tokens) AS cache_read_tokens, SUM(cache_write_tokens) AS cache_write_tokens, SUM(latency_ms) AS model_ms, SUM(cost_usd) AS cost, SUM(cost_usd IS NULL) AS unknown_costs, MAX(input_tokens) AS largest_prompt';
const toolSums = "COUNT(*) AS tool_calls, SUM(status = 'failed') AS failures, SUM(latency_ms) AS tool_ms";
/** A session and its sub-agents, all the way down (`below`). */
const below =
  'WITH RECURSIVE below(id) AS (SELECT ? UNION ALL SELECT sessions.id FROM sessions JOIN below ON sessions.parent_session_id = below.id)';
/** The session the person started that a session belongs to (itself, or its sub-agents' root), and all below it. */
const tree =
  'WITH RECURSIVE up(id, parent) AS (SELECT id, parent_session_id FROM sessions WHERE id = ? UNION ALL SELECT sessions.id, sessions.parent_session_id FROM sessions JOIN up ON sessions.id = up.parent), below(id) AS (SELECT id FROM up WHERE parent IS NULL UNION ALL SELECT sessions.id FROM sessions JOIN below ON sessions.parent_session_id = below.id)';

export class SqliteAccountingStore implements AccountingStore {
  private readonly statements: {
    model: Statement<[ModelCallRecord & { cost_usd: number | null; cache_read: number | null; cache_write: number | null }]>;
    tool: Statement<[Record<string, unknown>]>;
    modelTotals: Statement<[string], TotalsRow>;
    toolTotals: Statement<[string], ToolTotalsRow>;
    modelBelow: Statement<[string], TotalsRow>;
    toolBelow: Statement<[string], ToolTotalsRow>;
    modelTree: Statement<[string], TotalsRow>;
    toolTree: Statement<[string], ToolTotalsRow>;
    output: Statement<[string], { output: string; output_bytes: number; output_truncated: number }>;
  };

  constructor(db: Database) {
    this.statements = {
      model: db.prepare(
        'INSERT INTO model_calls (id, session_id, turn_id, provider_id, provider_kind, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, latency_ms, cost_usd, status, at) VALUES (@id, @sessionId, @turnId, @providerId, @providerKind, @model, @inputTokens, @outputTokens, @cache_read, @cache_write, @latencyMs, @cost_usd, @status, @at)',
      ),
      tool: db.prepare(
        'INSERT INTO tool_calls (id, session_id, turn_id, tool, input, output, output_bytes, output_truncated, status, latency_ms, at) VALUES (@id, @sessionId, @turnId, @tool, @input, @output, @outputBytes, @truncated, @status, @latencyMs, @at)',
      ),
      modelTotals: db.prepare(`SELECT ${modelSums} FROM model_calls WHERE session_id = ?`),
      toolTotals: db.prepare(`SELECT ${toolSums} FROM tool_calls WHERE session_id = ?`),
      modelBelow: db.prepare(`${below} SELECT ${modelSums} FROM model_calls WHERE session_id IN (SELECT id FROM below)`),
      toolBelow: db.prepare(`${below} SELECT ${toolSums} FROM tool_calls WHERE session_id IN (SELECT id FROM below)`),
      modelTree: db.prepare(`${tree} SELECT ${modelSums} FROM model_calls WHERE session_id IN (SELECT id FROM below)`),
      toolTree: db.prepare(`${tree} SELECT ${toolSums} FROM tool_calls WHERE session_id IN (SELECT id FROM below)`),
      output: db.prepare('SELECT output, output_bytes, output_truncated FROM tool_calls WHERE id = ?'),
    };
  }

  recordModelCall(record: ModelCallRecord): void {
    // NULL where the server did not say: a call from before the cache was counted, or a server that does not report it.
    this.statements.model.run({
      ...record,
      cost_usd: record.costUsd,
      cache_read: record.cacheReadTokens ?? null,
      cache_write: record.cacheWriteTokens ?? null,
    });
  }

  recordToolCall(record: ToolCallRecord): void {
    this.statements.tool.run({ ...record, truncated: record.truncated ? 1 : 0 });
  }

  totals(sessionId: string, scope: TotalsScope = 'session'): SessionTotals {
    const [models, toolRows] =
      scope === 'session'
        ? [this.statements.modelTotals, this.statements.toolTotals]
        : scope === 'with_sub_agents'
          ? [this.statements.modelBelow, this.statements.toolBelow]
          : [this.statements.modelTree, this.statements.toolTree];
    const model = models.get(sessionId) as TotalsRow;
    const tools = toolRows.get(sessionId) as ToolTotalsRow;
    return {
      modelCalls: model.model_calls,
      inputTokens: model.input_tokens ?? 0,
      outputTokens: model.output_tokens ?? 0,
      cacheReadTokens: model.cache_read_tokens ?? 0,
      cacheWriteTokens: model.cache_write_tokens ?? 0,
      modelMs: model.model_ms ?? 0,
      largestPromptTokens: model.largest_prompt ?? 0,
      costUsd: (model.unknown_costs ?? 0) > 0 ? null : (model.cost ?? 0),
      pricedCostUsd: model.cost ?? 0,
      unpricedCalls: model.unknown_costs ?? 0,
      toolCalls: tools.tool_calls,
      toolFailures: tools.failures ?? 0,
      toolMs: tools.tool_ms ?? 0,
    };
  }

  toolOutput(toolCallId: string): { output: string; outputBytes: number; truncated: boolean } | null {
    const row = this.statements.output.get(toolCallId);
    return row ? { output: row.output, outputBytes: row.output_bytes, truncated: row.output_truncated === 1 } : null;
  }
}
