import { describe, expect, it } from 'vitest';
import { withDeadline } from '../../src/shared/deadline';

describe('a wait with a deadline', () => {
  it('ends with a TimeoutError once its time is up, however much garbage is made meanwhile', async () => {
    const signal = withDeadline(new AbortController().signal, 50);
    // Garbage enough for collections to run while the deadline waits.
    for (let round = 0; round < 20; round += 1) new Array(200_000).fill({ round });
    await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    expect(signal.reason).toMatchObject({ name: 'TimeoutError' });
  });

  it('ends with the caller’s reason when the caller stops first', () => {
    const caller = new AbortController();
    const signal = withDeadline(caller.signal, 60_000);
    caller.abort(new Error('stopped'));
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toMatchObject({ message: 'stopped' });
  });
});
