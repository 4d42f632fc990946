import { describe, expect, it } from 'vitest';
import { auditCsv, auditJson, csvField, sessionAuditSchema, type AuditRow } from '../../src/shared/audit';

const row: AuditRow = {
  seq: 7,
  at: Date.UTC(2026, 0, 2, 3, 4, 5),
  kind: 'gate',
  turnId: 't1',
  toolCallId: 'c1',
  tool: 'run_command',
  summary: 'echo "hi", then\nls',
  risk: 'write_high',
  reason: 'runs a command',
  answer: 'deny',
  answerReason: '=HYPERLINK("http://example.invalid")',
  decidedBy: { kind: 'person', id: null, label: 'You' },
  decidedAt: Date.UTC(2026, 0, 2, 3, 4, 6),
  policy: 'L1 recommend · write_high → ask',
  grantId: null,
};

/** A small RFC 4180 reader, so the test reads the CSV back as a spreadsheet would, not by matching text. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (quoted) {
      if (char === '"' && text[index + 1] === '"') {
        field += '"';
        index += 1;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      record.push(field);
      field = '';
    } else if (char === '\r' && text[index + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      index += 1;
    } else field += char;
  }
  return records;
}

describe('audit export', () => {
  it('quotes a CSV field only when it holds a quote, a comma or a line break, doubling its quotes', () => {
    expect(csvField('plain text')).toBe('plain text');
    expect(csvField('a, b')).toBe('"a, b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('')).toBe('');
  });

  it('defuses a field a spreadsheet would run as a formula', () => {
    expect(csvField('=1+1')).toBe("'=1+1");
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvField('-rf')).toBe("'-rf");
    expect(csvField('=A1,B1')).toBe(`"'=A1,B1"`);
  });

  it('writes a header and one record per row that read back to the same values', () => {
    const csv = auditCsv([row, { ...row, seq: null, answerReason: null, decidedAt: null }]);
    expect(csv.startsWith('\uFEFFtime,kind,tool,')).toBe(true);
    expect(csv.endsWith('\r\n')).toBe(true);
    const [header, first, second] = parseCsv(csv.slice(1));
    expect(header).toHaveLength(15);
    expect(first).toHaveLength(15);
    const cell = (record: string[] | undefined, name: string) => record?.[header?.indexOf(name) ?? -1];
    expect(cell(first, 'time')).toBe('2026-01-02T03:04:05.000Z');
    expect(cell(first, 'summary')).toBe('echo "hi", then\nls');
    expect(cell(first, 'answer reason')).toBe('\'=HYPERLINK("http://example.invalid")');
    expect(cell(first, 'policy')).toBe('L1 recommend · write_high → ask');
    expect(cell(first, 'journal row')).toBe('7');
    expect(cell(second, 'decided at')).toBe('');
    expect(cell(second, 'journal row')).toBe('');
  });

  it('writes JSON that says what it is and reads back through the schema', () => {
    const audit = { session: { id: 's1', title: 'A session', workspacePath: null }, rows: [row] };
    const parsed = JSON.parse(auditJson(audit, 42)) as Record<string, unknown>;
    expect(parsed).toMatchObject({ format: 'agent-workbench/audit', version: 1, exportedAt: 42 });
    expect(sessionAuditSchema.parse(parsed)).toEqual(audit);
  });
});
