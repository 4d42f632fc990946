import { describe, expect, it } from 'vitest';
import { Slots, type ServerLimit } from '../../../../src/main/agent/session/sub-agent-turns';
import { CancelledError } from '../../../../src/shared/errors';

/** Whether a promise has settled after the work queued so far has run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setTimeout(resolve, 0));
  return done;
}

const never = new AbortController().signal;
const oneSlot: ServerLimit = { key: 'llama', cap: 1 };

describe('slots for sub-agents at once', () => {
  it('holds a sub-agent back only while its own server is full, whatever runs on other servers', async () => {
    const slots = new Slots(() => 4);
    await slots.take(never); // a sub-agent on a server that says nothing of its slots
    await slots.take(never, { key: 'cloud', cap: 8 });
    await slots.take(never, oneSlot);
    const second = slots.take(never, oneSlot);
    expect(await settled(second)).toBe(false);
    // Another server's sub-agent ending frees nothing on this one.
    slots.give({ key: 'cloud', cap: 8 });
    expect(await settled(second)).toBe(false);
    // The one on this server ending lets the next in.
    slots.give(oneSlot);
    expect(await settled(second)).toBe(true);
  });

  it('lets one with room pass one that waits for its full server, and keeps the overall limit', async () => {
    const slots = new Slots(() => 2);
    await slots.take(never, oneSlot);
    const waiting = slots.take(never, oneSlot);
    const other = slots.take(never, null);
    expect(await settled(other)).toBe(true);
    expect(await settled(waiting)).toBe(false);
    // Two run: the overall limit holds a third back even on a server with room.
    const third = slots.take(never, { key: 'cloud', cap: 8 });
    expect(await settled(third)).toBe(false);
    // The other ends: the first in line with room now is the one for the cloud; the llama one still waits.
    slots.give(null);
    expect(await settled(third)).toBe(true);
    expect(await settled(waiting)).toBe(false);
    slots.give(oneSlot);
    expect(await settled(waiting)).toBe(true);
  });

  it('a waiting sub-agent stopped leaves the line, and its place goes to the next', async () => {
    const slots = new Slots(() => 1);
    await slots.take(never);
    const stop = new AbortController();
    const stopped = slots.take(stop.signal);
    const next = slots.take(never);
    stop.abort();
    await expect(stopped).rejects.toBeInstanceOf(CancelledError);
    slots.give();
    expect(await settled(next)).toBe(true);
  });
});
