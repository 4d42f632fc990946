import { describe, expect, it } from 'vitest';
import type { ConversationEntry } from '../../../../src/main/agent/context/context-view';
import { contextNote, dateTold } from '../../../../src/main/agent/context/recalled-memories';
import type { Memory } from '../../../../src/shared/prompt';

const day = 24 * 60 * 60_000;
const monday = new Date(2026, 10, 23, 10, 0).getTime();
const tokens = (chars: number): number => Math.ceil(chars / 3);
const memory = (id: string, text: string): Memory => ({
  id,
  text,
  scope: 'workspace',
  workspacePath: '/work',
  source: 'person',
  sessionId: null,
  createdAt: monday,
  updatedAt: monday,
});

describe('the note after the person’s message', () => {
  it('says nothing on the day the session began, when no memory bears on the message', () => {
    expect(contextNote({ memories: [], now: monday + 3_600_000, startedAt: monday, entries: [] }, 8192, tokens)).toBeNull();
  });

  it('tells a later day once: the system prompt keeps the first, and the next turn that day is told nothing', () => {
    const tuesday = monday + day;
    const note = contextNote({ memories: [], now: tuesday, startedAt: monday, entries: [] }, 8192, tokens);
    expect(note?.text).toBe('Today is 2026-11-24 (Tuesday).');
    const entries: ConversationEntry[] = [
      { role: 'user', content: 'Go on.' },
      { role: 'user', content: note?.text ?? '', recalled: true },
    ];
    expect(dateTold(entries)).toBe('2026-11-24');
    expect(contextNote({ memories: [], now: tuesday + 60_000, startedAt: monday, entries }, 8192, tokens)).toBeNull();
    // A message of the person's that happens to read like one is no note of the app's.
    expect(dateTold([{ role: 'user', content: 'Today is 2020-01-01, remember?' }])).toBeNull();
  });

  it('gives the memories that fit a small window’s share, the most relevant first', () => {
    const memories = [memory('a', 'Releases are tagged v1.2.3.'), memory('b', 'x'.repeat(2_000)), memory('c', 'Tests run with npm test.')];
    const note = contextNote({ memories, now: monday, startedAt: monday, entries: [] }, 4096, tokens);
    expect(note?.used.map((used) => used.id)).toEqual(['a', 'c']);
    expect(note?.text).toMatch(/^<memory>\n.*\n- Releases are tagged v1\.2\.3\.\n- Tests run with npm test\.\n<\/memory>$/s);
  });
});
