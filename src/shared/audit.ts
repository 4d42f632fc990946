/*
 * The audit view's rows, one per decision of a session, and the audit exported as JSON or CSV.
 */

import { z } from 'zod';
import { idSchema, riskLevelSchema } from './domain';

/**
 * One decision of a session, as the audit view lists it. Made from the journal (see `auditOf` in the agent layer):
 * a gate and its answer, a call that ran or was refused without a gate, a plan and its answer, a trust grant
 * made or revoked, a change of autonomy.
 */
export const auditKindSchema = z.enum([
  'gate',
  'automatic',
  'rule',
  'plan',
  'grant_created',
  'grant_revoked',
  'autonomy_changed',
  // A result held for review, and a budget reached: gates of their own.
  'result_review',
  'budget',
]);
export type AuditKind = z.infer<typeof auditKindSchema>;

export const auditAnswerSchema = z.enum([
  // A gate's answers, as the person gave them.
  'deny',
  'allow_once',
  'allow_5m',
  'allow_30m',
  'allow_1h',
  'allow_5h',
  'allow_session',
  // A call decided without a gate: run by the matrix, a grant or an approved plan; refused by a rule.
  'run',
  'denied',
  // A plan's answers; `not_asked` when every step could run at the session's autonomy.
  'approve',
  'reject',
  'refine',
  'not_asked',
  // A gate or plan still waiting, or left when its turn ended.
  'pending',
  'unanswered',
  'created',
  'revoked',
  'changed',
  // A held result's answers, and a budget gate's.
  'release',
  'withhold',
  'continue',
  'stop',
]);
export type AuditAnswer = z.infer<typeof auditAnswerSchema>;

/** Who or what decided: the person, a trust grant (by id), the autonomy matrix, an approved plan (by id), or a rule. */
export const auditDeciderSchema = z.object({
  kind: z.enum(['person', 'grant', 'matrix', 'plan', 'rule']),
  id: z.string().nullable(),
  /** In words, with the grant's description where a grant decided. */
  label: z.string(),
});
export type AuditDecider = z.infer<typeof auditDeciderSchema>;

export const auditRowSchema = z.object({
  /** The journal row it comes from; null for a revocation, which the trust store records. */
  seq: z.number().int().nullable(),
  /** When it was asked for (a gate opened, a plan shown) or happened. */
  at: z.number().int(),
  kind: auditKindSchema,
  turnId: z.string().nullable(),
  toolCallId: z.string().nullable(),
  tool: z.string().nullable(),
  summary: z.string(),
  risk: riskLevelSchema.nullable(),
  /** Why it was asked, or why it was decided as it was. */
  reason: z.string(),
  answer: auditAnswerSchema,
  /** The person's reason for a denial, the text of a refined plan, or why a gate went unanswered. */
  answerReason: z.string().nullable(),
  decidedBy: auditDeciderSchema,
  decidedAt: z.number().int().nullable(),
  /** The policy row that applied, such as "L1 recommend · write_low → ask". */
  policy: z.string(),
  /** The grant made by the answer, or the one a call ran on. */
  grantId: idSchema.nullable(),
});
export type AuditRow = z.infer<typeof auditRowSchema>;

export const sessionAuditSchema = z.object({
  session: z.object({ id: idSchema, title: z.string(), workspacePath: z.string().nullable() }),
  rows: z.array(auditRowSchema),
});
export type SessionAudit = z.infer<typeof sessionAuditSchema>;

export const auditExportFormat = 'agent-workbench/audit';
export const auditExportVersion = 1;

/** The audit as a JSON document that says what it is and when it was made. */
export function auditJson(audit: SessionAudit, exportedAt: number): string {
  return JSON.stringify({ format: auditExportFormat, version: auditExportVersion, exportedAt, ...audit }, null, 1);
}

const iso = (time: number | null): string => (time === null ? '' : new Date(time).toISOString());

const columns: ReadonlyArray<[string, (row: AuditRow) => string]> = [
  ['time', (row) => iso(row.at)],
  ['kind', (row) => row.kind],
  ['tool', (row) => row.tool ?? ''],
  ['summary', (row) => row.summary],
  ['risk', (row) => row.risk ?? ''],
  ['reason', (row) => row.reason],
  ['answer', (row) => row.answer],
  ['answer reason', (row) => row.answerReason ?? ''],
  ['decided by', (row) => row.decidedBy.label],
  ['decided at', (row) => iso(row.decidedAt)],
  ['policy', (row) => row.policy],
  ['grant', (row) => row.grantId ?? ''],
  ['turn', (row) => row.turnId ?? ''],
  ['tool call', (row) => row.toolCallId ?? ''],
  ['journal row', (row) => (row.seq === null ? '' : String(row.seq))],
];

/**
 * One CSV field (RFC 4180): quoted when it holds a quote, a comma or a line break, with quotes doubled. A field
 * that a spreadsheet would run as a formula (it starts with =, +, -, @, a tab or a carriage return; a command
 * summary can) gets a leading apostrophe first, as OWASP advises against CSV injection.
 */
export function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/**
 * The rows as CSV: a header, one line per decision, CRLF line ends, times in UTC (ISO 8601). It starts with a
 * byte order mark so spreadsheets read the UTF-8 (the arrows of the policy column) as such.
 */
export function auditCsv(rows: readonly AuditRow[]): string {
  const lines = [columns.map(([name]) => name), ...rows.map((row) => columns.map(([, cell]) => cell(row)))];
  return `\uFEFF${lines.map((cells) => cells.map(csvField).join(',')).join('\r\n')}\r\n`;
}
