/*
 * A deadline added to an abort signal, with a timer that cannot be collected before it fires.
 */

/**
 * `signal`, cut short after `ms` with a `TimeoutError`, as `AbortSignal.any([signal, AbortSignal.timeout(ms)])` would
 * be, except that the timer is held strongly: Node 20 can collect a timeout signal that only a composite signal refers
 * to before it fires (nodejs/node#57736), and then the wait it was meant to bound never ends. The timer does not keep
 * the process alive.
 */
export function withDeadline(signal: AbortSignal | null, ms: number): AbortSignal {
  const controller = new AbortController();
  const timer: unknown = setTimeout(
    () => controller.abort(new DOMException(`The operation was aborted after ${ms} ms.`, 'TimeoutError')),
    ms,
  );
  (timer as { unref?: () => void }).unref?.();
  return signal ? AbortSignal.any([signal, controller.signal]) : controller.signal;
}
