import { describe, expect, it } from 'vitest';
import { compactedView, supersededNote, type ConversationEntry } from '../../../../src/main/agent/context/context-view';
import { gentleChars, hardChars, makeRoom } from '../../../../src/main/agent/context/room';
import type { ChatMessage } from '../../../../src/main/agent/ports/model-provider';

const user = (content: string): ChatMessage => ({ role: 'user', content });
const call = (id: string, path: string): ChatMessage => ({
  role: 'assistant',
  content: '',
  toolCalls: [{ id, name: 'read_file', arguments: JSON.stringify({ path }) }],
});
const result = (id: string, content: string): ChatMessage => ({ role: 'tool', toolCallId: id, content });
/** A token a character: sizes are exact, so the tests can say where each cut lands. */
const size = (message: ChatMessage): number =>
  message.content.length + (message.role === 'assistant' ? (message.toolCalls ?? []).reduce((sum, c) => sum + c.arguments.length, 0) : 0);

function reads(steps: number, chars: number, path = (step: number) => `notes/${step}.md`): ConversationEntry[] {
  const entries: ConversationEntry[] = [user('Follow the notes.')];
  for (let step = 0; step < steps; step += 1)
    entries.push(call(`c${step}`, path(step)), result(`c${step}`, `note ${step} `.padEnd(chars, 'x')));
  return entries;
}

const total = (entries: readonly ConversationEntry[]): number => compactedView(entries).reduce((sum, message) => sum + size(message), 0);

describe('making room in one step', () => {
  it('replaces whole-file reads read again later by a note, and keeps the last two steps whole', () => {
    const entries = reads(8, 3_000, () => 'notes/same.md');
    const room = makeRoom({ entries, upTo: 1, carried: [], fixed: 0, target: 5_000, limit: 20_000, size });
    const view = compactedView([...entries, { role: 'compaction', id: 'k', summary: '', upTo: 1, cuts: room.cuts }]);
    const results = view.filter((message) => message.role === 'tool').map((message) => message.content);
    expect(results.slice(0, 6).every((content) => content === supersededNote)).toBe(true);
    expect(results.slice(6)).toEqual([(entries[14] as ChatMessage).content, (entries[16] as ChatMessage).content]);
  });

  it('shortens old results oldest first, gently then hard, down to the target and no further', () => {
    const entries = reads(10, 3_000);
    const before = total(entries);
    const target = before - 8_000;
    const room = makeRoom({ entries, upTo: 1, carried: [], fixed: 0, target, limit: before, size });
    const compacted = [...entries, { role: 'compaction' as const, id: 'k', summary: '', upTo: 1, cuts: room.cuts }];
    expect(total(compacted)).toBeLessThanOrEqual(target);
    expect(room.tokens).toBe(total(compacted));
    // Gentle cuts free about 1,350 characters each: six of them, the oldest, reach the target.
    expect(room.cuts.map((cut) => cut.at)).toEqual([2, 4, 6, 8, 10, 12]);
    expect(room.cuts.every((cut) => cut.keep === gentleChars)).toBe(true);
    // A tighter target cuts hard, and never the last two steps.
    const tight = makeRoom({ entries, upTo: 1, carried: [], fixed: 0, target: 6_000, limit: before, size });
    expect(tight.cuts.some((cut) => cut.keep === hardChars)).toBe(true);
    expect(tight.cuts.every((cut) => cut.at < 17)).toBe(true);
  });

  it('keeps what an earlier compaction cut, and never cuts a message it had cut further than it was', () => {
    const entries = reads(6, 3_000);
    const carried = [{ at: 2, keep: hardChars }];
    const room = makeRoom({ entries, upTo: 1, carried, fixed: 0, target: 1_000_000, limit: 1_000_000, size });
    expect(room.cuts).toEqual(carried);
    // A cut before the compaction's verbatim part is dropped: the summary stands for that message now.
    expect(makeRoom({ entries, upTo: 5, carried, fixed: 0, target: 1_000_000, limit: 1_000_000, size }).cuts).toEqual([]);
  });

  it("cuts a single result too large for any request to what fits, the newest too, but never the person's latest message", () => {
    const entries: ConversationEntry[] = [user('Read the log.'), call('c0', 'big.log'), result('c0', 'y'.repeat(50_000))];
    const room = makeRoom({ entries, upTo: 1, carried: [], fixed: 1_000, target: 4_000, limit: 6_000, size });
    expect(room.tokens).toBeLessThanOrEqual(6_000);
    expect(room.cuts).toHaveLength(1);
    expect(room.cuts[0]?.at).toBe(2);
    const shown = compactedView([...entries, { role: 'compaction', id: 'k', summary: '', upTo: 1, cuts: room.cuts }]);
    expect(shown[0]).toEqual(entries[0]);
    expect(shown[2]?.content).toMatch(/^y+\n\[… \d+ characters of this old result left out/);
    // Nothing to cut but the person's own message: the room says so by its size, and the request is refused later.
    const only = makeRoom({ entries: [user('z'.repeat(50_000))], upTo: 1, carried: [], fixed: 0, target: 4_000, limit: 6_000, size });
    expect(only.cuts).toEqual([]);
    expect(only.tokens).toBeGreaterThan(6_000);
  });
});
