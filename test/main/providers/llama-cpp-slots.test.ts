import { describe, expect, it } from 'vitest';
import { SlotAssignment } from '../../../src/main/providers/llama-cpp-slots';

describe('the slot each line of requests keeps', () => {
  it('gives a key the same slot every time', () => {
    const slots = new SlotAssignment(3);
    const first = slots.slotFor('session-a');
    slots.slotFor('session-b');
    expect(slots.slotFor('session-a')).toBe(first);
    expect(slots.slotFor('session-a')).toBe(first);
  });

  it('gives new keys the slots no key holds first, in order', () => {
    const slots = new SlotAssignment(3);
    expect(['a', 'b', 'c'].map((key) => slots.slotFor(key))).toEqual([0, 1, 2]);
  });

  it('gives a new key the slot used longest ago once every slot is held, and its holder loses it', () => {
    const slots = new SlotAssignment(2);
    slots.slotFor('a');
    slots.slotFor('b');
    slots.slotFor('a');
    expect(slots.slotFor('c')).toBe(1);
    expect(slots.heldBy('b')).toBeNull();
    // b comes back as a new key: the slot used longest ago is now a's.
    expect(slots.slotFor('b')).toBe(0);
    expect(slots.heldBy('a')).toBeNull();
  });

  it('passes over a slot with a request running when another is idle', () => {
    const slots = new SlotAssignment(2);
    const a = slots.slotFor('a');
    slots.slotFor('b');
    slots.started(a);
    expect(slots.slotFor('c')).toBe(1);
    slots.ended(a);
    expect(slots.slotFor('d')).toBe(a);
  });

  it('takes the slot used longest ago even when every slot is running', () => {
    const slots = new SlotAssignment(2);
    slots.started(slots.slotFor('a'));
    slots.started(slots.slotFor('b'));
    expect(slots.slotFor('c')).toBe(0);
  });

  it('refuses a server without slots', () => {
    expect(() => new SlotAssignment(0)).toThrow(RangeError);
  });
});
