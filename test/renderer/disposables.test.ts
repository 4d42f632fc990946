import { describe, expect, it } from 'vitest';
import { DisposableStore, toDisposable, type Disposable } from '../../src/shared/lifecycle';
import { scheduleIn, subscription } from '../../src/renderer/src/disposables';

/** A scheduler whose callbacks run when the test says, and which records what was cancelled. */
function manualScheduler() {
  const waiting = new Map<number, () => void>();
  let next = 0;
  return {
    schedule: (run: () => void): Disposable => {
      const id = next++;
      waiting.set(id, run);
      return toDisposable(() => void waiting.delete(id));
    },
    runAll: () => {
      const runs = [...waiting.values()];
      waiting.clear();
      for (const run of runs) run();
    },
    waiting: () => waiting.size,
  };
}

describe('renderer disposables', () => {
  it('a scheduled callback is owned by its store until it runs, then forgotten', async () => {
    const scheduler = manualScheduler();
    const store = new DisposableStore();
    let runs = 0;
    scheduleIn(store, scheduler.schedule, () => (runs += 1));
    expect(store.size).toBe(1);
    scheduler.runAll();
    expect(runs).toBe(1);
    expect(store.size).toBe(0);

    scheduleIn(store, scheduler.schedule, () => (runs += 1));
    await store.dispose();
    expect(scheduler.waiting()).toBe(0);
    scheduler.runAll();
    expect(runs).toBe(1);
  });

  it('a callback scheduled in a disposed store is cancelled at once', async () => {
    const scheduler = manualScheduler();
    const store = new DisposableStore();
    await store.dispose();
    scheduleIn(store, scheduler.schedule, () => undefined);
    await Promise.resolve();
    expect(scheduler.waiting()).toBe(0);
  });

  it('a subscription is released once, whatever its unsubscribe function returns', async () => {
    const listeners = new Set<() => void>();
    const listener = (): void => undefined;
    listeners.add(listener);
    const store = new DisposableStore();
    // `Set.delete` answers a boolean, which the store must not take for a promise.
    store.add(subscription(() => listeners.delete(listener)));
    await expect(store.dispose()).resolves.toBeUndefined();
    expect(listeners.size).toBe(0);
  });
});
