/**
 * Ownership of resources: whoever creates a listener, a timer, a child process or a server adds it
 * to a store it owns, and disposing the store lets all of them go, newest first. After the model of
 * VS Code's `DisposableStore` (src/vs/base/common/lifecycle.ts). Pure TypeScript: the main process
 * and the renderer use the same one.
 */

/** Something that holds a resource and lets it go. Disposing twice does nothing the second time. */
export interface Disposable {
  dispose(): void | Promise<void>;
}

/** Wraps a function as a disposable that runs it once. */
export function toDisposable(release: () => void | Promise<void>): Disposable {
  let done = false;
  return {
    dispose: () => {
      if (done) return;
      done = true;
      return release();
    },
  };
}

/** An event target as both the DOM and Node's `EventTarget` define it (an `AbortSignal`, a window, a socket). */
export interface ListenerTarget<E> {
  addEventListener(type: string, listener: (event: E) => void, options?: { once?: boolean; passive?: boolean; capture?: boolean }): void;
  removeEventListener(type: string, listener: (event: E) => void, options?: { capture?: boolean }): void;
}

/**
 * Resources owned together. `add` hands the item back, so a line can create and register at once;
 * an item added after the store was disposed is disposed at once, never leaked. Disposal goes
 * newest first and every item is disposed even when one throws; the errors are thrown together
 * after.
 */
export class DisposableStore implements Disposable {
  private readonly items = new Set<Disposable>();
  private disposed = false;

  get isDisposed(): boolean {
    return this.disposed;
  }

  /** How many resources the store holds now. */
  get size(): number {
    return this.items.size;
  }

  add<T extends Disposable>(item: T): T {
    if (this.disposed) {
      try {
        const result = item.dispose();
        if (isPromise(result)) result.catch(reportLate);
      } catch (error) {
        reportLate(error);
      }
      return item;
    }
    this.items.add(item);
    return item;
  }

  /** Disposes one item now and forgets it. */
  release(item: Disposable): void | Promise<void> {
    if (!this.items.delete(item)) return;
    return item.dispose();
  }

  /** Forgets an item without disposing it: its owner let it go already (a timer that fired, a process that exited). */
  forget(item: Disposable): void {
    this.items.delete(item);
  }

  /** A timeout owned by the store: it is forgotten once it fires, cleared if the store goes first. */
  timeout(run: () => void, ms: number): Disposable {
    const handle = setTimeout(() => {
      this.items.delete(owned);
      run();
    }, ms);
    const owned = this.add(toDisposable(() => clearTimeout(handle)));
    return owned;
  }

  /** An interval owned by the store. */
  interval(run: () => void, ms: number): Disposable {
    const handle = setInterval(run, ms);
    return this.add(toDisposable(() => clearInterval(handle)));
  }

  /** A listener owned by the store; removed when the store is disposed or the item released. */
  listen<E>(
    target: ListenerTarget<E>,
    type: string,
    listener: (event: E) => void,
    options?: { once?: boolean; passive?: boolean; capture?: boolean },
  ): Disposable {
    target.addEventListener(type, listener, options);
    const capture = options?.capture === undefined ? undefined : { capture: options.capture };
    return this.add(toDisposable(() => target.removeEventListener(type, listener, capture)));
  }

  /**
   * Disposes everything, newest first, each after the one before it has let go: synchronous
   * releases happen before this returns, and an asynchronous one (a turn that must end, a server
   * that must close) is awaited before the next, older resource goes (the database it writes to).
   * Errors are thrown together once every item was disposed.
   */
  dispose(): Promise<void> {
    if (this.disposed) return Promise.resolve();
    this.disposed = true;
    const items = [...this.items].reverse();
    this.items.clear();
    const errors: unknown[] = [];
    const settle = (): void => {
      if (errors.length === 1) throw errors[0];
      if (errors.length > 1) throw new AggregateError(errors, `${errors.length} resources could not be released.`);
    };
    const releaseFrom = (index: number): Promise<void> | null => {
      for (let next = index; next < items.length; next += 1) {
        try {
          const result = (items[next] as Disposable).dispose();
          // Only a promise is waited for; whatever else a release returns is of no interest here.
          if (isPromise(result)) {
            return result.then(
              () => releaseFrom(next + 1) ?? undefined,
              (error: unknown) => {
                errors.push(error);
                return releaseFrom(next + 1) ?? undefined;
              },
            );
          }
        } catch (error) {
          errors.push(error);
        }
      }
      return null;
    };
    const pending = releaseFrom(0);
    return pending ? pending.then(settle) : Promise.resolve().then(settle);
  }
}

function isPromise(value: unknown): value is Promise<void> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}

function reportLate(error: unknown): void {
  console.error('A resource added after its owner was disposed could not be released:', error);
}
