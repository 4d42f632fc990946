/**
 * The crash harness: runs scripted sessions in a child process and kills it with SIGKILL at random
 * points (while a response streams, while a tool runs, just as a checkpoint is written, while a
 * gate waits, and while a sub-agent streams or waits at its gate), `CRASH_RUNS` times (200 by default). After each kill it checks the database
 * (`PRAGMA integrity_check`, every checkpoint the child reported as committed is there and intact,
 * the journal has no gaps, every head row equals a replay of its journal), and the next life of the app must resume the killed session and finish
 * it. The database is encrypted at rest, as the app makes it where the system has a keychain (`CRASH_PLAIN=1`: plain).
 * Prints the counts; exits non-zero on any failure.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteCheckpointStore } from '../../src/main/store/sqlite-checkpoint-store';
import { headMismatches } from '../head-check';
import { ScriptedModelServer, type RecordedRequest, type ScriptedTurn } from '../scripted-model-server';
import { crashEncrypted, encryptionProblem, openCheckedDatabase } from './crash-database';
import { startLife } from './life';

const runs = Number(process.env['CRASH_RUNS'] ?? 200);
const phases = ['streaming', 'tool', 'checkpoint', 'approval', 'sub-streaming', 'sub-approval'] as const;
type Phase = (typeof phases)[number];

/**
 * The model's side of every session: write a file (asks), then read it and run a command (asks), then finish. A session
 * asked to delegate hands that work to a sub-agent that may write, and finishes with its answer; the sub-agent (its
 * brief names the goal) does the work. A session asked to plan runs a plan of two such steps, the second after the
 * first, then the plan's answer and check.
 */
function answer(request: RecordedRequest): ScriptedTurn {
  const messages = request.body['messages'] as Array<{ role: string; content: unknown }>;
  const lastUser = messages.map((message) => message.role).lastIndexOf('user');
  const asked = String(messages[lastUser]?.content ?? 'task x');
  const goal = /^You are a sub-agent[\s\S]*?\nGoal: (.*)$/m.exec(asked)?.[1];
  const task = (goal ?? asked).replace(/[^A-Za-z0-9]/g, '-');
  const results = messages.slice(lastUser).filter((message) => message.role === 'tool').length;
  const talk = { kind: 'text' as const, text: `Working on ${task}. `.repeat(6), chunkSize: 8 };
  // A plan's own last steps: the answer from its results, and its check.
  if (goal?.startsWith('Write the answer to'))
    return { chunkDelayMs: 1, steps: [{ kind: 'text', text: 'Both parts are done. ', chunkSize: 8 }] };
  if (goal?.startsWith('Check the answer'))
    return { chunkDelayMs: 1, steps: [{ kind: 'text', text: 'PASS: both parts are done.', chunkSize: 8 }] };
  if (asked.startsWith('plan '))
    return results === 0
      ? {
          chunkDelayMs: 1,
          steps: [
            talk,
            {
              kind: 'tool_call',
              id: 'p',
              name: 'run_plan',
              arguments: JSON.stringify({
                goal: `plan ${task}`,
                steps: [
                  { id: 'one', goal: `sub ${task}-1`, tools: 'read_write' },
                  { id: 'two', goal: `sub ${task}-2`, tools: 'read_write', dependsOn: ['one'] },
                ],
              }),
            },
          ],
        }
      : { chunkDelayMs: 1, steps: [{ kind: 'text', text: 'The plan ran to its end. '.repeat(3), chunkSize: 8 }] };
  if (asked.startsWith('delegate '))
    return results === 0
      ? {
          chunkDelayMs: 1,
          steps: [
            talk,
            { kind: 'tool_call', id: 'd', name: 'delegate', arguments: JSON.stringify({ goal: `sub ${task}`, tools: 'read_write' }) },
          ],
        }
      : { chunkDelayMs: 1, steps: [{ kind: 'text', text: 'The sub-agent finished the task. '.repeat(3), chunkSize: 8 }] };
  if (results === 0)
    return {
      chunkDelayMs: 1,
      steps: [
        talk,
        {
          kind: 'tool_call',
          id: 'w',
          name: 'write_file',
          arguments: JSON.stringify({ path: `${task}.md`, content: `notes for ${task}\n`.repeat(50) }),
        },
      ],
    };
  if (results === 1) {
    return {
      chunkDelayMs: 1,
      steps: [
        talk,
        { kind: 'tool_call', id: 'r', name: 'read_file', arguments: JSON.stringify({ path: `${task}.md` }) },
        { kind: 'tool_call', id: 'c', name: 'run_command', arguments: JSON.stringify({ command: 'sleep 0.02 && echo checked' }) },
      ],
    };
  }
  return { chunkDelayMs: 1, steps: [{ kind: 'text', text: 'Finished the task. '.repeat(4), chunkSize: 8 }] };
}

/** What must hold after a kill. Returns the problems found. */
function check(databasePath: string, committed: ReadonlyArray<{ sessionId: string; checkpointId: string; seq: number }>): string[] {
  const problems: string[] = [];
  const encryption = encryptionProblem(databasePath);
  if (encryption) problems.push(encryption);
  const db = openCheckedDatabase(databasePath);
  try {
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') problems.push(`integrity_check: ${String(integrity)}`);
    const checkpoints = new SqliteCheckpointStore(db);
    const journalRow = db.prepare<[string, number], { type: string; payload: string }>(
      'SELECT type, payload FROM journal WHERE session_id = ? AND seq = ?',
    );
    for (const item of committed) {
      const tuple = checkpoints.getTuple({ threadId: item.sessionId, checkpointId: item.checkpointId });
      if (!tuple) problems.push(`committed checkpoint ${item.checkpointId} is missing`);
      else if (tuple.recoveredFrom) problems.push(`committed checkpoint ${item.checkpointId} fails its integrity check`);
      const row = journalRow.get(item.sessionId, item.seq);
      if (!row || row.type !== 'checkpoint_saved' || !row.payload.includes(item.checkpointId))
        problems.push(`journal row ${item.seq} of ${item.sessionId} is not the checkpoint it was`);
    }
    const gaps = db
      .prepare<[], { session_id: string; rows: number; top: number }>(
        'SELECT session_id, COUNT(*) AS rows, MAX(seq) AS top FROM journal GROUP BY session_id',
      )
      .all();
    for (const gap of gaps)
      if (gap.rows !== gap.top + 1) problems.push(`the journal of ${gap.session_id} has gaps (${gap.rows} rows, last ${gap.top})`);
    // Every branch's head row says what a replay of its journal says, whatever moment the kill came at.
    problems.push(...headMismatches(db));
  } finally {
    db.close();
  }
  return problems;
}

/** The sub-agents a data folder holds, and how many of them worked in a plan (its steps, its answer and its check). */
function countSubAgents(databasePath: string): { all: number; planSteps: number } {
  const db = openCheckedDatabase(databasePath, true);
  try {
    const count = (where: string): number =>
      db.prepare<[], { count: number }>(`SELECT COUNT(*) AS count FROM sessions WHERE ${where}`).get()?.count ?? 0;
    return {
      all: count('parent_session_id IS NOT NULL'),
      planSteps: count("parent_session_id IS NOT NULL AND json_extract(sub_agent, '$.stepId') IS NOT NULL"),
    };
  } finally {
    db.close();
  }
}

interface Tally {
  readonly killedAt: Record<Phase, number>;
  readonly problems: string[];
  readonly killed: Set<string>;
  readonly resumed: Map<string, string>;
  sessionsFinished: number;
  checkedSteps: number;
  subAgents: number;
  planSteps: number;
}

/** One worker: its own data folder and workspace, `count` lives killed in turn, then one that finishes everything. */
async function worker(index: number, count: number, baseUrl: string, tally: Tally): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), `workbench-crash-${index}-`));
  const dataDir = join(root, 'data');
  const workspace = join(root, 'workspace');
  mkdirSync(dataDir);
  mkdirSync(workspace);
  const databasePath = join(dataDir, 'workbench.sqlite');
  const { killedAt, problems, killed, resumed } = tally;
  const unfinishedSubAgents = (): string[] => {
    const db = openCheckedDatabase(databasePath, true);
    try {
      return db
        .prepare<[], { id: string; status: string }>(
          "SELECT id, status FROM sessions WHERE parent_session_id IS NOT NULL AND status NOT IN ('completed', 'completed_with_errors')",
        )
        .all()
        .map((row) => `worker ${index}: sub-agent ${row.id} was not brought to its end (${row.status})`);
    } finally {
      db.close();
    }
  };
  try {
    for (let run = 0; run < count && problems.length === 0; run += 1) {
      const target: Phase = phases[(run + index) % phases.length] as Phase;
      const occurrence = 1 + Math.floor(Math.random() * 3);
      const committed: Array<{ sessionId: string; checkpointId: string; seq: number }> = [];
      let current: string | null = null;
      let seen = 0;
      let done = false;
      const life = startLife(
        dataDir,
        baseUrl,
        workspace,
        (line, self) => {
          const [kind, a, b, c] = line.split(' ');
          if (kind === 'committed' && a && b && c) committed.push({ sessionId: a, checkpointId: b, seq: Number(c) });
          else if (kind === 'recovered' && a && b) resumed.set(a, b);
          else if (kind === 'started' && a) current = a;
          else if (kind === 'finished') tally.sessionsFinished += 1;
          else if (kind === 'error') problems.push(`worker ${index} run ${run}: the app failed: ${line}`);
          else if (kind === 'phase' && a === target && b === current && !done) {
            seen += 1;
            if (seen < occurrence) return;
            done = true;
            killed.add(b);
            killedAt[target] += 1;
            // Somewhere in the next few milliseconds: during the step, or just after it.
            setTimeout(() => self.kill(), Math.random() * 4);
          }
        },
        false,
        true,
      );
      // A life that neither reaches its kill nor ends is stuck: that is a failure too.
      const stuck = setTimeout(() => {
        problems.push(`worker ${index} run ${run}: the app got stuck (last lines: ${life.lines.slice(-3).join(' | ')})`);
        done = true;
        life.kill();
      }, 30_000);
      const code = await life.exited;
      clearTimeout(stuck);
      if (!done) problems.push(`worker ${index} run ${run}: the app exited (${code}) before the kill`);
      tally.checkedSteps += committed.length;
      problems.push(...check(databasePath, committed).map((problem) => `worker ${index} run ${run} (killed while ${target}): ${problem}`));
    }
    // A last life, not killed: it must bring every killed session to its end.
    const last = startLife(
      dataDir,
      baseUrl,
      workspace,
      (line) => {
        const [kind, a, b] = line.split(' ');
        if (kind === 'recovered' && a && b) resumed.set(a, b);
      },
      true,
      true,
    );
    const stuck = setTimeout(() => {
      problems.push(`worker ${index}: the last life got stuck (last lines: ${last.lines.slice(-3).join(' | ')})`);
      last.kill();
    }, 60_000);
    await last.exited;
    clearTimeout(stuck);
    // Every killed tree resumed to its end: its sub-agents too.
    problems.push(...unfinishedSubAgents());
    const counted = countSubAgents(databasePath);
    tally.subAgents += counted.all;
    tally.planSteps += counted.planSteps;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const workers = Math.max(1, Math.min(Number(process.env['CRASH_WORKERS'] ?? 4), availableParallelism(), runs));
  const server = await ScriptedModelServer.start({ fallback: answer });
  const tally: Tally = {
    killedAt: { streaming: 0, tool: 0, checkpoint: 0, approval: 0, 'sub-streaming': 0, 'sub-approval': 0 },
    problems: [],
    killed: new Set(),
    resumed: new Map(),
    sessionsFinished: 0,
    checkedSteps: 0,
    subAgents: 0,
    planSteps: 0,
  };
  const started = Date.now();
  try {
    await Promise.all(
      Array.from({ length: workers }, (_, index) =>
        worker(index, Math.floor(runs / workers) + (index < runs % workers ? 1 : 0), server.openaiBaseUrl, tally),
      ),
    );
  } finally {
    await server.close();
  }
  const { problems, killed, resumed } = tally;
  for (const sessionId of killed) {
    const status = resumed.get(sessionId);
    if (status !== 'completed' && status !== 'completed_with_errors')
      problems.push(`session ${sessionId} was not resumed to its end (${status ?? 'never resumed'})`);
  }
  // Enough lives hand work on that trees and plans must have been killed and resumed: a run without any tested neither.
  if (runs >= 20 && tally.planSteps === 0) problems.push('no plan ran in any life: plans were not put to the test');
  if (runs >= 20 && tally.subAgents === tally.planSteps) problems.push('no sub-agent outside a plan ran in any life');
  const summary = {
    runs,
    database: crashEncrypted ? 'encrypted' : 'plain',
    workers,
    killed_while: tally.killedAt,
    committed_steps_checked: tally.checkedSteps,
    sessions_killed: killed.size,
    sessions_resumed_to_end: [...killed].filter((id) => resumed.get(id)?.startsWith('completed')).length,
    sessions_finished_unkilled: tally.sessionsFinished,
    sub_agents_run: tally.subAgents,
    of_them_in_plans: tally.planSteps,
    problems: problems.length,
    seconds: Math.round((Date.now() - started) / 100) / 10,
  };
  for (const problem of problems.slice(0, 20)) console.error(problem);
  console.log(JSON.stringify(summary));
  process.exit(problems.length === 0 ? 0 : 1);
}

void main();
