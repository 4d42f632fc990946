import { describe, expect, it, vi } from 'vitest';
import { DisposableStore, toDisposable } from '../../src/shared/lifecycle';

describe('DisposableStore', () => {
  it('releases everything it holds, newest first, once', async () => {
    const order: string[] = [];
    const store = new DisposableStore();
    store.add(toDisposable(() => void order.push('first')));
    store.add(toDisposable(() => void order.push('second')));
    await store.dispose();
    await store.dispose();
    expect(order).toEqual(['second', 'first']);
    expect(store.size).toBe(0);
  });

  it('disposes at once what is added after it was disposed', async () => {
    const store = new DisposableStore();
    await store.dispose();
    const release = vi.fn();
    store.add(toDisposable(release));
    await Promise.resolve();
    expect(release).toHaveBeenCalledOnce();
  });

  it('clears its timers and intervals, and forgets a timeout that fired', async () => {
    vi.useFakeTimers();
    try {
      const store = new DisposableStore();
      const fired = vi.fn();
      store.timeout(fired, 10);
      const ticks = vi.fn();
      store.interval(ticks, 5);
      expect(store.size).toBe(2);
      vi.advanceTimersByTime(10);
      expect(fired).toHaveBeenCalledOnce();
      expect(ticks).toHaveBeenCalledTimes(2);
      expect(store.size).toBe(1);
      const late = vi.fn();
      store.timeout(late, 10);
      await store.dispose();
      vi.advanceTimersByTime(100);
      expect(late).not.toHaveBeenCalled();
      expect(ticks).toHaveBeenCalledTimes(2);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('removes its listeners from an event target', async () => {
    const target = new EventTarget();
    const store = new DisposableStore();
    const heard = vi.fn();
    store.listen(target, 'ping', heard);
    target.dispatchEvent(new Event('ping'));
    await store.dispose();
    target.dispatchEvent(new Event('ping'));
    expect(heard).toHaveBeenCalledOnce();
  });

  it('releases every item even when one throws, then reports the failures together', async () => {
    const store = new DisposableStore();
    const release = vi.fn();
    store.add(toDisposable(release));
    store.add(
      toDisposable(() => {
        throw new Error('stuck');
      }),
    );
    store.add(toDisposable(() => Promise.reject(new Error('slow and stuck'))));
    await expect(store.dispose()).rejects.toThrow('2 resources could not be released.');
    expect(release).toHaveBeenCalledOnce();
  });

  it('lets an older resource go only after a newer one has released asynchronously', async () => {
    const order: string[] = [];
    const store = new DisposableStore();
    store.add(toDisposable(() => void order.push('database closed')));
    store.add(toDisposable(() => new Promise<void>((resolve) => setTimeout(() => resolve(void order.push('turns ended')), 5))));
    store.add(toDisposable(() => void order.push('timer cleared')));
    const done = store.dispose();
    expect(order).toEqual(['timer cleared']);
    await done;
    expect(order).toEqual(['timer cleared', 'turns ended', 'database closed']);
  });

  it('takes a release that returns something other than a promise as done', async () => {
    const store = new DisposableStore();
    const subscribers = new Set([1]);
    // An unsubscribe that hands back Set.delete's boolean.
    store.add({ dispose: () => subscribers.delete(1) as unknown as void });
    await store.dispose();
    expect(subscribers.size).toBe(0);
  });

  it('waits for resources that are released asynchronously', async () => {
    const store = new DisposableStore();
    let closed = false;
    store.add(toDisposable(() => new Promise<void>((resolve) => setTimeout(() => resolve(void (closed = true)), 5))));
    await store.dispose();
    expect(closed).toBe(true);
  });
});
