import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RecordedRequest, ScriptedTurn } from './scripted-model-server';
import { asksForNotes } from './twenty-notes';

/*
 * Reviewing six log files one by one on a 4,096-token window: each log is a large part of the window, so the session
 * has to make room again and again. The model is a function of each request, as a real one is: it names the logs with
 * errors from what it was sent (the logs, or the notes that carried them), so it answers right only if that survived.
 */

export const logCount = 6;
/** The logs with an error in them. */
export const failingLogs = [2, 5];
export const logsTask = 'Review the six log files in logs/ one by one (log-1.log to log-6.log) and tell me which ones report errors.';
export const logsAnswer = `Logs with errors: ${failingLogs.map((index) => `log-${index}.log`).join(', ')}.`;

/** Writes `logs/log-N.log` into `workspace`: about 4,500 characters each, an error near the top of the failing ones. */
export function writeLogs(workspace: string): void {
  mkdirSync(join(workspace, 'logs'), { recursive: true });
  // The project's instructions, as a real one has: they take their share of every request's fixed part.
  const rule = 'Keep reviews short and name each file you looked at; quote the exact error line when there is one. ';
  writeFileSync(join(workspace, 'AGENTS.md'), `# How we work here\n\n${rule.repeat(40)}`);
  for (let index = 1; index <= logCount; index += 1) {
    const lines = [`log-${index}.log: service started`, 'INFO configuration loaded from /etc/service.conf'];
    if (failingLogs.includes(index)) lines.push(`ERROR in log-${index}.log: the disk is full, writes are failing`);
    for (let line = 0; lines.join('\n').length < 4_500; line += 1)
      lines.push(`2026-11-26 10:${String(line % 60).padStart(2, '0')}:00 INFO request ${line} handled in ${(line * 37) % 90} ms`);
    writeFileSync(join(workspace, 'logs', `log-${index}.log`), `${lines.join('\n')}\n`);
  }
}

interface WireMessage {
  readonly role: string;
  readonly content?: unknown;
}

const textOf = (message: WireMessage | undefined): string =>
  typeof message?.content === 'string' ? message.content : JSON.stringify(message?.content ?? '');

const read = (index: number, said: string): ScriptedTurn => ({
  steps: [
    { kind: 'text', text: said },
    {
      kind: 'tool_call',
      id: `log_${index}_${Date.now()}`,
      name: 'read_file',
      arguments: JSON.stringify({ path: `logs/log-${index}.log` }),
    },
  ],
});

/** The model: reads the logs in order, keeps notes of the errors when asked, and names the failing logs at the end. */
export function logsModel(request: RecordedRequest): ScriptedTurn {
  const messages = (request.body['messages'] ?? []) as WireMessage[];
  const all = messages.map(textOf).join('\n');
  const errors = [
    ...new Set([...all.matchAll(/ERROR in log-(\d)\.log|errors in log-(\d)/g)].map((match) => Number(match[1] ?? match[2]))),
  ].sort();
  const reviewed = Math.max(
    0,
    ...[...all.matchAll(/log-(\d)\.log: service started|reviewed up to log-(\d)/g)].map((match) => Number(match[1] ?? match[2])),
  );
  if (asksForNotes(request))
    return {
      steps: [
        {
          kind: 'text',
          text: `Reviewing the six logs one by one: reviewed up to log-${reviewed}. ${errors.map((index) => `Found errors in log-${index}.`).join(' ')}`,
        },
      ],
    };
  if (reviewed >= logCount)
    return { steps: [{ kind: 'text', text: `Logs with errors: ${errors.map((index) => `log-${index}.log`).join(', ')}.` }] };
  return read(reviewed + 1, reviewed === 0 ? 'Starting with the first log.' : `Reviewed log-${reviewed}.log.`);
}
