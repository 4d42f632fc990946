import { eventFormatVersion, type RuntimeEvent } from '../src/shared/events';
import { sessionExportFormat, sessionExportVersion } from '../src/shared/session-export';

/**
 * A finished session of `turns` question-and-answer turns, 8 events each, as an export document
 * ready for `session:import`. Turn n asks "Question n: …" and is answered "Answer n. …".
 */
export function longSessionDocument(turns: number, title: string): string {
  const journal: Array<{ seq: number; at: number; branchId: string; format: number; event: RuntimeEvent }> = [];
  const at = Date.UTC(2026, 10, 22);
  for (let turn = 0; turn < turns; turn += 1) {
    const turnId = `turn${turn}`;
    const events: RuntimeEvent[] = [
      { type: 'user_message', turnId, messageId: `q${turn}`, text: `Question ${turn}: how does part ${turn} work?` },
      { type: 'run_started', turnId, model: { providerId: 'none', model: 'none' }, providerKind: 'openai-compatible' },
      { type: 'status_changed', status: 'planning' },
      { type: 'assistant_message_started', turnId, messageId: `a${turn}` },
      {
        type: 'text_delta',
        turnId,
        messageId: `a${turn}`,
        text: `Answer ${turn}. ${'It works like this, in some detail. '.repeat(8)}\n\n\`\`\`ts\nconst part${turn} = ${turn};\n\`\`\``,
      },
      { type: 'model_call_finished', turnId, messageId: `a${turn}`, inputTokens: 100, outputTokens: 80, latencyMs: 900, attempts: 1 },
      { type: 'run_finished', turnId, status: 'completed' },
      { type: 'status_changed', status: 'completed' },
    ];
    for (const event of events) journal.push({ seq: journal.length, at, branchId: 'main', format: eventFormatVersion, event });
  }
  return JSON.stringify({
    format: sessionExportFormat,
    version: sessionExportVersion,
    exportedAt: at,
    session: { id: 'long', title, workspacePath: null, model: null, autonomy: 'L1', status: 'completed', createdAt: at, updatedAt: at },
    activeBranchId: 'main',
    branches: [{ id: 'main', parentId: null, forkSeq: -1, checkpointId: null, reason: 'start', createdAt: at, activeAt: at }],
    journal,
    checkpoints: [],
  });
}
