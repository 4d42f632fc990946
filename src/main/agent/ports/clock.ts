/** Time, injected so tests can move it. */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

/**
 * Time for deadlines (a grant's end, a gate's): milliseconds that only go forward. Within a run of the app it follows
 * the monotonic clock, or the wall clock where that runs faster (the computer slept); across restarts it goes on from
 * where it stood, by the wall clock only forward. Setting the clock back extends no deadline; setting it forward only
 * brings one nearer.
 */
export interface SteadyClock {
  now(): number;
}
