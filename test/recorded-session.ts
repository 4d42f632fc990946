import { z } from 'zod';
import { defineTool } from '../src/main/agent/ports/tools';
import { temporaryFolder } from './helpers';
import { LoopbackTransport } from './host/loopback-transport';
import { createNodeCore } from './host/node-core';
import { ScriptedModelServer, type ScriptedTurn } from './scripted-model-server';

/** One export document of a recorded session, taken once its journal had reached a size. */
export interface RecordedSession {
  /** The size asked for: the journal had at least this many events when it was exported. */
  readonly target: number;
  /** Events in the exported journal. */
  readonly events: number;
  readonly turns: number;
  readonly title: string;
  /** The last answer's first words, unique in the session ("Answer 41."): what a reader sees at its end. */
  readonly lastAnswer: string;
  /** A `session:import` document. */
  readonly document: string;
}

/** Reads a part of the project: its output streams, as a command's would. */
const readPart = defineTool({
  name: 'read_part',
  description: 'Reads one part of the project.',
  input: z.object({ part: z.number().int() }).strict(),
  risk: 'read_only',
  execute: async (input, context) => {
    const output = `part ${input.part}\n${'a line of the part, as a file would have it\n'.repeat(12)}`;
    context.emitOutput(output);
    return { output };
  },
});

/** Turn n: a short remark and a tool call, then the answer, both streamed a few characters at a time. */
function scriptedTurn(turn: number): ScriptedTurn[] {
  // Chunks a few milliseconds apart, longer than the core's frame, become separate text_delta rows, as with a real model.
  return [
    {
      steps: [
        { kind: 'text', text: `Let me read part ${turn}.`, chunkSize: 8 },
        { kind: 'tool_call', id: `read${turn}`, name: 'read_part', arguments: JSON.stringify({ part: turn }) },
      ],
      chunkDelayMs: 3,
    },
    {
      steps: [
        {
          kind: 'text',
          text: `Answer ${turn}. ${'It works like this, in some detail. '.repeat(4)}\n\n\`\`\`ts\nconst part${turn} = ${turn};\n\`\`\``,
          chunkSize: 40,
        },
      ],
      chunkDelayMs: 3,
    },
  ];
}

/**
 * Sessions as the runtime journals them, recorded through the real core, its IPC handlers and the
 * scripted model: every turn is a question, a streamed remark, a read-only tool call whose output
 * streams, and a streamed answer, with the checkpoints the runtime saves after each step (about 26
 * events). One session grows turn by turn and is exported each time its journal reaches one of
 * `targets`, so the documents share one turn shape and differ only in how many turns come before
 * the last. Turns repeat until the largest target; building 10,000 events takes tens of seconds.
 */
export async function recordSessions(targets: readonly number[], title: (target: number) => string): Promise<RecordedSession[]> {
  const pending = [...targets].sort((a, b) => a - b);
  const folder = temporaryFolder('workbench-recorded-');
  const server = await ScriptedModelServer.start();
  const transport = new LoopbackTransport();
  transport.recordEvents = false;
  const { core } = await createNodeCore({ dataDir: folder.path, transport, tools: [readPart], frameMs: 1, validateOutputs: false });
  const call = async <T>(channel: string, payload: unknown): Promise<T> => {
    const result = await transport.invoke(channel, payload);
    if (!result.ok) throw new Error(`${channel}: ${result.error.message}`);
    return result.value as T;
  };
  try {
    const runtime = core.runtime;
    if (!runtime) throw new Error('the core did not start');
    const provider = await call<{ id: string }>('provider:save', {
      kind: 'openai-compatible',
      name: 'Scripted',
      baseUrl: server.openaiBaseUrl,
    });
    await call('settings:update', { defaultModel: { providerId: provider.id, model: 'scripted-model' } });
    const { id: sessionId } = await call<{ id: string }>('session:create', { title: 'Recorded' });
    const recorded: RecordedSession[] = [];
    for (let turn = 0; pending.length > 0; turn += 1) {
      server.enqueue(...scriptedTurn(turn));
      await call('run:send', { sessionId, text: `Question ${turn}: how does part ${turn} work?` });
      await runtime.whenIdle(sessionId);
      // The last turn's rows end the line, so the last one's number counts the line (one branch).
      const last = await call<{ entries: Array<{ seq: number }> }>('session:open', { sessionId, recentTurns: 1 });
      const events = (last.entries.at(-1)?.seq ?? -1) + 1;
      while (pending.length > 0 && events >= (pending[0] ?? Infinity)) {
        const target = pending.shift() ?? 0;
        await call('session:rename', { sessionId, title: title(target) });
        const { document } = await call<{ document: string }>('session:export', { sessionId });
        recorded.push({ target, events, turns: turn + 1, title: title(target), lastAnswer: `Answer ${turn}.`, document });
      }
    }
    return recorded;
  } finally {
    await core.close();
    await server.close();
    folder.remove();
  }
}
