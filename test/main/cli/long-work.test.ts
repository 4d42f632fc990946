import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../../src/shared/events';
import { temporaryFolder } from '../../helpers';
import { runCli } from './run-cli';
import { ScriptedModelServer } from '../../scripted-model-server';
import { factOf, finalAnswer, noteCount, notesModel, notesTask, writeNotes } from '../../twenty-notes';

describe('long work on a small window, in the terminal runner', () => {
  let server: ScriptedModelServer;
  let workspace: ReturnType<typeof temporaryFolder>;
  beforeAll(async () => {
    // llama.cpp with an 8,192-token window: it refuses any prompt larger than that, as the real one does.
    server = await ScriptedModelServer.start({ personality: 'llama.cpp', contextWindow: 8192, fallback: notesModel });
    workspace = temporaryFolder();
    writeNotes(workspace.path);
  });
  afterAll(async () => {
    await server.close();
    workspace.remove();
  });

  it('follows twenty 5,000-character notes to the end, never sending more than the window, and summarizes on the way', async () => {
    const result = await runCli([
      '--json',
      '--workspace',
      workspace.path,
      '--endpoint',
      server.openaiBaseUrl,
      '--model',
      'scripted-model',
      notesTask,
    ]);
    const entries = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as JournalEntry);
    const events = entries.map((entry) => entry.event);
    expect(result.code, result.stderr).toBe(0);
    const finished = events.find((event) => event.type === 'run_finished');
    expect(finished).toMatchObject({ status: 'completed' });

    // Every request fit the window with its answer room, by the server's own count.
    const chats = server.requests.filter((request) => request.path === '/v1/chat/completions');
    for (const request of chats) {
      const maxTokens = Number(request.body['max_tokens']);
      expect(maxTokens).toBeGreaterThan(0);
      expect(request.promptTokens + maxTokens).toBeLessThanOrEqual(8192);
    }
    // Every note reached the model whole at least once, and the answer is the last note's.
    const sent = chats.map((request) => JSON.stringify(request.body));
    for (let index = 1; index <= noteCount; index += 1) expect(sent.some((body) => body.includes(factOf(index)))).toBe(true);
    const answer = events.flatMap((event) => (event.type === 'text_delta' ? [event.text] : [])).join('');
    expect(answer).toContain(finalAnswer);

    // The window was read from the server, and older messages were summarized by the model, more than once.
    const measured = events.filter((event) => event.type === 'context_measured');
    expect(measured[0]).toMatchObject({ window: 8192, windowSource: 'server' });
    const compactions = events.filter((event) => event.type === 'context_compacted');
    expect(compactions.length).toBeGreaterThanOrEqual(2);
    for (const compaction of compactions) {
      expect(compaction).toMatchObject({ method: 'model', trigger: 'threshold' });
      if (compaction.type === 'context_compacted') expect(compaction.tokensAfter).toBeLessThan(compaction.tokensBefore);
    }
    // Each compaction is a checkpoint of its own.
    expect(events.filter((event) => event.type === 'checkpoint_saved' && event.source === 'compaction')).toHaveLength(compactions.length);
  }, 120_000);
});
