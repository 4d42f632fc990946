/*
 * A gate's time limit: when it ends unanswered (on steady time, which neither a clock set back nor a restart extends),
 * and the wait that answers it with a denial then, unless the person answered first.
 */

import type { GateDeadline } from '../../../shared/domain';
import { CancelledError } from '../../../shared/errors';
import type { ApprovalAnswer, PlanAnswer } from '../rules/gates';
import type { LoopState } from './loop-state';
import type { StepContext } from './step-context';

/** The deadline of a gate opened now, from the setting for the session's autonomy level; none when that is off. */
export function gateDeadline({ setup, services }: StepContext): GateDeadline | undefined {
  const timeout = setup.gateTimeout?.();
  const seconds = timeout?.seconds[setup.autonomy] ?? null;
  if (!timeout || seconds === null) return undefined;
  const steadyNow = services.steady?.now() ?? services.clock.now();
  return { seconds, action: timeout.action, steadyAt: steadyNow + seconds * 1000, wallAt: services.clock.now() + seconds * 1000 };
}

/** Waits this long on the event loop's timer; rejects when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new CancelledError());
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = (): void => {
      clearTimeout(timer);
      reject(new CancelledError());
    };
    signal.addEventListener('abort', stop, { once: true });
  });
}

/** The words for a gate's time limit: "5 minutes", "90 seconds". */
function limitWords(seconds: number): string {
  if (seconds % 3600 === 0) return seconds === 3600 ? '1 hour' : `${seconds / 3600} hours`;
  if (seconds % 60 === 0) return seconds === 60 ? '1 minute' : `${seconds / 60} minutes`;
  return `${seconds} seconds`;
}

/**
 * Waits at a call's gate for the person's answer, or until its deadline on steady time: then the gate is answered
 * with a denial (the setting's action says whether the turn stops too). Whichever comes first is taken.
 */
export function waitAtGate(
  context: StepContext,
  state: Pick<Extract<LoopState, { kind: 'approval' }>, 'approvalId' | 'deadline'>,
  signal: AbortSignal,
): Promise<ApprovalAnswer> {
  const { approvalId, deadline } = state;
  if (!deadline) return context.services.gates.wait(approvalId, 'approval', signal);
  const reason = `no answer came within ${limitWords(deadline.seconds)}`;
  return withDeadline(context, deadline, signal, {
    wait: () => context.services.gates.wait(approvalId, 'approval', signal),
    expire: () => context.services.gates.expire(approvalId, 'approval', { decision: 'deny', reason, timedOut: true }),
  });
}

/** Waits at a plan's gate for the person's answer, or until its deadline: then the plan is rejected. */
export function waitAtPlan(
  context: StepContext,
  state: Pick<Extract<LoopState, { kind: 'plan' }>, 'planId' | 'deadline'>,
  signal: AbortSignal,
): Promise<PlanAnswer> {
  const { planId, deadline } = state;
  if (!deadline) return context.services.gates.wait(planId, 'plan', signal);
  const text = `no answer came within ${limitWords(deadline.seconds)}`;
  return withDeadline(context, deadline, signal, {
    wait: () => context.services.gates.wait(planId, 'plan', signal),
    expire: () => context.services.gates.expire(planId, 'plan', { answer: 'reject', text, timedOut: true }),
  });
}

/** Waits for a gate's answer while a ticker answers it at its deadline (unless the person answered first). */
async function withDeadline<T>(
  context: StepContext,
  deadline: GateDeadline,
  signal: AbortSignal,
  gate: { wait: () => Promise<T>; expire: () => boolean },
): Promise<T> {
  const { services } = context;
  const ticking = new AbortController();
  const now = (): number => services.steady?.now() ?? services.clock.now();
  const expire = async (): Promise<void> => {
    // Checked again every second on steady time, by a timer of the event loop's: a single timer would wait out a
    // sleep of the computer, and steady time moves with the clock the turn is given.
    for (let left = deadline.steadyAt - now(); left > 0; left = deadline.steadyAt - now())
      await pause(Math.min(left, 1_000), ticking.signal);
    if (!signal.aborted) gate.expire();
  };
  void expire().catch(() => undefined);
  try {
    return await gate.wait();
  } finally {
    ticking.abort();
  }
}
