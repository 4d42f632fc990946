/*
 * The renderer's side of resource ownership: the browser's one-shot callbacks as disposables, and the hooks that give
 * a component a store for what it starts.
 *
 * Every timer, listener, frame, observer and subscription of the renderer is made through these or through a
 * `DisposableStore`, so each has an owner that lets it go.
 */

import { useEffect, useLayoutEffect, useRef, type DependencyList, type RefObject } from 'react';
import { DisposableStore, toDisposable, type Disposable } from '../../shared/lifecycle';

/**
 * Runs `run` at the next animation frame; disposing cancels it. Where there are no frames (the
 * store run under Node by the benchmarks) it runs after 16 ms instead.
 */
export function animationFrame(run: () => void): Disposable {
  if (typeof requestAnimationFrame !== 'function') {
    const timer = setTimeout(run, 16);
    return toDisposable(() => clearTimeout(timer));
  }
  const frame = requestAnimationFrame(() => run());
  return toDisposable(() => cancelAnimationFrame(frame));
}

/**
 * A subscription to main as a disposable. What its unsubscribe function returns is dropped: a
 * bridge may hand back whatever its own removal returns (the test host's `Set.delete` gives a
 * boolean), and a store takes any value returned by a disposal for a promise to wait on.
 */
export function subscription(unsubscribe: () => void): Disposable {
  return toDisposable(() => {
    unsubscribe();
  });
}

/** Runs `run` in an idle moment of the page, or after `options.timeout` ms at the latest; disposing cancels it. */
export function idleCallback(run: (deadline: IdleDeadline) => void, options?: IdleRequestOptions): Disposable {
  const handle = requestIdleCallback(run, options);
  return toDisposable(() => cancelIdleCallback(handle));
}

/** Calls `run` whenever `element` changes size; disposing stops watching it. */
export function observeResize(element: Element, run: () => void): Disposable {
  const observer = new ResizeObserver(() => run());
  observer.observe(element);
  return toDisposable(() => observer.disconnect());
}

/** Calls `run` after each batch of changes to `element` that `options` asks to watch; disposing stops watching it. */
export function observeMutations(element: Node, options: MutationObserverInit, run: () => void): Disposable {
  const observer = new MutationObserver(() => run());
  observer.observe(element, options);
  return toDisposable(() => observer.disconnect());
}

/**
 * Something that happens once, owned by `store` while it is pending: forgotten by the store once
 * it has happened, cancelled if the store is disposed first. `DisposableStore.timeout` does the
 * same for a timer; this does it for a frame or an idle moment.
 */
export function scheduleIn<A extends unknown[]>(
  store: DisposableStore,
  schedule: (run: (...args: A) => void) => Disposable,
  run: (...args: A) => void,
): Disposable {
  let scheduled: Disposable | null = null;
  let ran = false;
  scheduled = schedule((...args) => {
    ran = true;
    if (scheduled) store.forget(scheduled);
    run(...args);
  });
  // Run already (a scheduler that did not wait): there is nothing left to own.
  return ran ? scheduled : store.add(scheduled);
}

/**
 * An effect whose resources belong to a store made for that run of it: what `setup` adds is
 * disposed when the effect is cleaned up, because its dependencies changed or the component went.
 */
export function useDisposables(setup: (disposables: DisposableStore) => void, dependencies: DependencyList): void {
  useEffect(() => {
    const disposables = new DisposableStore();
    setup(disposables);
    return () => void disposables.dispose();
    // The caller names the dependencies, as it would for `useEffect`.
  }, dependencies);
}

/** `useDisposables` run before the browser paints: for what must be in place in the first frame (a popover's place). */
export function useLayoutDisposables(setup: (disposables: DisposableStore) => void, dependencies: DependencyList): void {
  useLayoutEffect(() => {
    const disposables = new DisposableStore();
    setup(disposables);
    return () => void disposables.dispose();
    // The caller names the dependencies, as it would for `useLayoutEffect`.
  }, dependencies);
}

/**
 * A store that lives as long as the component is mounted, for what its handlers start along the way
 * (a timer that puts a label back, a download's URL). Once the component is gone its store is
 * disposed, so whatever is added to it then is let go of at once rather than left running.
 */
export function useLifetime(): RefObject<DisposableStore> {
  const lifetime = useRef<DisposableStore | null>(null);
  lifetime.current ??= new DisposableStore();
  useEffect(() => {
    // Mounted again after an unmount (React's StrictMode does this on purpose): a fresh store.
    if (!lifetime.current || lifetime.current.isDisposed) lifetime.current = new DisposableStore();
    const store = lifetime.current;
    return () => void store.dispose();
  }, []);
  return lifetime as RefObject<DisposableStore>;
}
