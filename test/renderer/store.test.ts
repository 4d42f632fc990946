import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/shared/domain';
import { createBridge } from '../../src/shared/ipc/bridge';
import type { EventName } from '../../src/shared/ipc/contract';
import { AppStore } from '../../src/renderer/src/store';

const session: Session = {
  id: 's1',
  title: 'One',
  workspacePath: null,
  model: null,
  autonomy: 'L1',
  status: 'idle',
  createdAt: 1,
  updatedAt: 1,
};

/** A bridge over a transport that answers a few channels and counts who listens to which event. */
function fakeMain() {
  const listeners = new Map<EventName, Set<(payload: unknown) => void>>();
  const answers: Record<string, unknown> = {
    'app:info': { startupError: null },
    'session:list': [session],
    'provider:list': [],
    'settings:get': null,
    'trust:list': [],
    'model:checks': [],
    // The last turn first, then the whole line: both leave state kept by session.
    'session:open': { session, entries: [], complete: false, branchPoints: [] },
  };
  const api = createBridge({
    invoke: async (channel) =>
      channel in answers ? { ok: true, value: answers[channel] } : { ok: false, error: { code: 'internal', message: channel } },
    subscribe: (event, listener) => {
      const set = listeners.get(event) ?? new Set();
      set.add(listener);
      listeners.set(event, set);
      return () => set.delete(listener);
    },
    pathForFile: () => null,
  });
  return {
    api,
    listening: () => [...listeners.values()].reduce((sum, set) => sum + set.size, 0),
    emit: (event: EventName, payload: unknown) => {
      for (const listener of listeners.get(event) ?? []) listener(payload);
    },
  };
}

/** Lets the store's pending calls answer. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 10));

describe('the renderer store', () => {
  it('lets go of its subscriptions to main and of the frame it waits for when it is disposed', async () => {
    const main = fakeMain();
    const frames: Array<() => void> = [];
    const store = new AppStore(main.api, (callback) => void frames.push(callback));
    let announced = 0;
    store.subscribe(() => (announced += 1));
    await store.start();
    expect(main.listening()).toBe(7);
    expect(frames.length).toBeGreaterThan(0);

    await store.dispose();
    expect(main.listening()).toBe(0);
    // A frame that comes after all the same announces nothing, and a change schedules none.
    for (const frame of frames.splice(0)) frame();
    store.notify({ kind: 'info', text: 'late' });
    expect(frames).toEqual([]);
    expect(announced).toBe(0);
  });

  it('shows a session opened from outside while it was starting once its own first choice is made', async () => {
    const main = fakeMain();
    const store = new AppStore(main.api, (callback) => void setTimeout(callback, 0));
    const launched: Session = { ...session, id: 's2', title: 'Opened from the dock', workspacePath: '/srv/project', updatedAt: 0 };
    const starting = store.start();
    main.emit('launch:opened', { session: launched });
    await starting;
    await settle();
    expect(store.getState().selectedId).toBe('s2');
    expect(store.getState().sessions.map((known) => known.id)).toEqual(['s1', 's2']);

    main.emit('launch:opened', { path: '/gone', error: { code: 'not_found', message: 'There is no file or folder there.' } });
    expect(store.getState().notice).toEqual({ kind: 'error', text: '/gone could not be opened: There is no file or folder there.' });
    await store.dispose();
  });

  it('keeps nothing of a deleted session', async () => {
    const main = fakeMain();
    const store = new AppStore(main.api, (callback) => void setTimeout(callback, 0));
    await store.start();
    store.setDraft('s1', 'a draft');
    await settle();
    const before = store.getState();
    expect(Object.keys(before.views)).toEqual(['s1']);
    expect(Object.keys(before.branchPoints)).toEqual(['s1']);
    expect(Object.keys(before.partial)).toEqual(['s1']);
    expect(Object.keys(before.drafts)).toEqual(['s1']);

    main.emit('session:changed', { deletedSessionId: 's1' });
    const after = store.getState();
    expect(after.sessions).toEqual([]);
    expect(after.selectedId).toBeNull();
    expect([after.views, after.branchPoints, after.partial, after.drafts]).toEqual([{}, {}, {}, {}]);
    await store.dispose();
  });
});
