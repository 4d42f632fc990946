import { describe, expect, it } from 'vitest';
import { PrefixMeter } from '../../../../src/main/agent/context/prefix-meter';
import type { ChatMessage, ModelRequest } from '../../../../src/main/agent/ports/model-provider';

const user = (content: string): ChatMessage => ({ role: 'user', content });
const request = (messages: readonly ChatMessage[], system = 'You are an agent.'): ModelRequest => ({ model: 'm', system, messages });

describe('the prefix meter', () => {
  it('counts the first request of a line as all new, and an appended one as unchanged up to what was added', () => {
    const meter = new PrefixMeter();
    const first = [user('Hello there.')];
    const a = meter.measure('line', request(first));
    expect(a).toMatchObject({ first: true, sharedChars: 0 });
    const second = [...first, { role: 'assistant' as const, content: 'Hi.' }, user('Go on.')];
    const b = meter.measure('line', request(second));
    expect(b.first).toBe(false);
    // Everything the first request held is the beginning of the second.
    expect(b.sharedChars).toBe(a.totalChars);
    expect(b.totalChars).toBeGreaterThan(a.totalChars);
  });

  it('sees what was appended to the same array since it was sent, as a turn adds to its conversation', () => {
    const meter = new PrefixMeter();
    const conversation: ChatMessage[] = [user('Hello there.')];
    const a = meter.measure('line', request(conversation));
    conversation.push({ role: 'assistant', content: 'Hi.' }, user('Go on.'));
    const b = meter.measure('line', request(conversation));
    expect(b.sharedChars).toBe(a.totalChars);
    expect(b.totalChars).toBe(a.totalChars + '\u0000assistant\u0000Hi.'.length + '\u0000user\u0000Go on.'.length);
  });

  it('stops at the first character that changed, in a message rebuilt with the same text or a changed one', () => {
    const meter = new PrefixMeter();
    meter.measure('line', request([user('abcdef'), user('second')]));
    // The same text in new objects (a conversation rebuilt from its checkpoint) counts the same.
    const rebuilt = meter.measure('line', request([user('abcdef'), user('second')]));
    expect(rebuilt.sharedChars).toBe(rebuilt.totalChars);
    const changed = meter.measure('line', request([user('abcXYZ'), user('second')]));
    const fixed = 'You are an agent.'.length;
    // The system prompt, the first message's role marker, and "abc".
    expect(changed.sharedChars).toBe(fixed + '\u0000user\u0000abc'.length);
  });

  it('shares only the common start of a changed system prompt, and keeps lines apart', () => {
    const meter = new PrefixMeter();
    meter.measure('a', request([user('x')], 'Prompt one.'));
    expect(meter.measure('b', request([user('x')], 'Prompt two.')).first).toBe(true);
    const again = meter.measure('a', request([user('x')], 'Prompt two.'));
    expect(again.sharedChars).toBe('Prompt '.length);
    meter.forget('a');
    expect(meter.measure('a', request([user('x')])).first).toBe(true);
  });
});
