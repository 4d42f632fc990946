import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RecordedRequest, ScriptedTurn } from './scripted-model-server';

/*
 * The long-work story on a small window: a chain of twenty 5,000-character notes, each naming the
 * next, and a model that follows the chain. The model is a function of each request as it
 * arrives, as a real one is: it reads what it was sent, so it only gets the task right if every
 * note reached it and the summaries carried what the work needed.
 */

export const noteCount = 20;

export const factOf = (index: number): string => `FACT-${index}-${(index * 7919).toString(36).toUpperCase()}`;
export const finalAnswer = 'The last note says: the treasure is under the old oak.';
export const notesTask = 'Follow the chain of notes starting at notes/note-1.md and tell me what the last one says.';

const filler =
  'Notes like this one are long on purpose, as real files are: they carry a lot of words that the work does not need, and one line that it does. ';

/** Writes the chain into `workspace/notes`. */
export function writeNotes(workspace: string): void {
  mkdirSync(join(workspace, 'notes'), { recursive: true });
  for (let index = 1; index <= noteCount; index += 1) {
    const last = index === noteCount;
    const head = `Note ${index} of ${noteCount}. Its fact is ${factOf(index)}. ${last ? 'This is the last note: the treasure is under the old oak.' : `Next: read notes/note-${index + 1}.md.`}\n`;
    writeFileSync(
      join(workspace, 'notes', `note-${index}.md`),
      head + filler.repeat(Math.ceil(5_000 / filler.length)).slice(0, 5_000 - head.length),
    );
  }
}

interface WireMessage {
  readonly role: string;
  readonly content?: unknown;
}

const textOf = (message: WireMessage | undefined): string =>
  typeof message?.content === 'string' ? message.content : JSON.stringify(message?.content ?? '');

const toolCall = (index: number): ScriptedTurn => ({
  steps: [
    { kind: 'text', text: `Reading note ${index}.` },
    { kind: 'tool_call', id: `call_${index}`, name: 'read_file', arguments: JSON.stringify({ path: `notes/note-${index}.md` }) },
  ],
});

/**
 * Whether a request asks for working notes: in requests of their own (the summarizer's system prompt), or as the
 * instruction that ends the conversation (a summary asked as its continuation).
 */
export function asksForNotes(request: RecordedRequest): boolean {
  const messages = (request.body['messages'] ?? []) as WireMessage[];
  const system = textOf(messages.find((message) => message.role === 'system'));
  const last = messages.at(-1);
  return system.includes('working notes') || (last?.role === 'user' && textOf(last).includes('working notes'));
}

/** The model: follows the chain, and writes the working notes when asked to summarize. */
export function notesModel(request: RecordedRequest): ScriptedTurn {
  const messages = (request.body['messages'] ?? []) as WireMessage[];
  const all = messages.map(textOf).join('\n');
  if (asksForNotes(request)) {
    const facts = [...new Set(all.match(/FACT-\d+-[0-9A-Z]+/g) ?? [])];
    const read = [...all.matchAll(/note-(\d+)\.md/g)].map((match) => Number(match[1]));
    const furthest = Math.max(0, ...read);
    return {
      steps: [
        {
          kind: 'text',
          text: `The person asked to follow the chain of notes. Notes read so far: up to note ${furthest}. Facts found: ${facts.join(', ')}.`,
          chunkSize: 64,
        },
      ],
    };
  }
  const last = messages.at(-1);
  const lastText = textOf(last);
  if (last?.role === 'tool' && lastText.includes('This is the last note'))
    return { steps: [{ kind: 'text', text: finalAnswer, chunkSize: 16 }] };
  const next = /Next: read notes\/note-(\d+)\.md/.exec(lastText);
  if (next) return toolCall(Number(next[1]));
  // A new request, or the work carried on from a summary: the furthest note named decides.
  const named = [...all.matchAll(/note-(\d+)\.md|up to note (\d+)/g)].map((match) => Number(match[1] ?? match[2]));
  return toolCall(Math.min(noteCount, Math.max(1, ...named)));
}
