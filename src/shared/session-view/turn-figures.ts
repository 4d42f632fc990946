/*
 * Each turn's figures in the session view's fold: how long it ran, its model calls' tokens and cost, and the files the
 * agent changed, for the line under the turn's last message. The turns' and model's folds call these.
 */

import type { RuntimeEvent } from '../events';
import type { SessionView, ViewTurn, ViewTurnEnd } from './types';

const noFigures: ViewTurn = {
  end: null,
  durationMs: null,
  runningSince: null,
  lastStepAt: null,
  modelCalls: 0,
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: null,
  costUsd: 0,
  unpricedCalls: 0,
  changedPaths: [],
};

/** The view with one turn's figures changed; a turn not seen yet (its start not read) starts from none. */
function withTurn(view: SessionView, turnId: string, change: (turn: ViewTurn) => ViewTurn): SessionView {
  return { ...view, turns: { ...view.turns, [turnId]: change(view.turns[turnId] ?? noFigures) } };
}

/** A turn started, or went on after the app stopped in the middle of it: a stretch of its time begins. */
export function turnStarted(view: SessionView, turnId: string, at: number): SessionView {
  return withTurn(view, turnId, (turn) => ({ ...turn, end: null, durationMs: turn.durationMs ?? 0, runningSince: at, lastStepAt: at }));
}

/** A step of a running turn was saved: if the app stops now, the turn ran at least until here. */
export function turnStepped(view: SessionView, turnId: string, at: number): SessionView {
  const turn = view.turns[turnId];
  if (turn === undefined || turn.runningSince === null) return view;
  return withTurn(view, turnId, (current) => ({ ...current, lastStepAt: at }));
}

/** A model call of the turn finished: its tokens, and its cost or that it had no price. */
export function turnCallAccounted(
  view: SessionView,
  event: Extract<RuntimeEvent, { type: 'model_call_finished' }>,
  at: number,
): SessionView {
  return withTurn(view, event.turnId, (turn) => ({
    ...turn,
    modelCalls: turn.modelCalls + 1,
    inputTokens: turn.inputTokens + event.inputTokens,
    outputTokens: turn.outputTokens + event.outputTokens,
    cacheReadTokens: event.cacheReadTokens === undefined ? turn.cacheReadTokens : (turn.cacheReadTokens ?? 0) + event.cacheReadTokens,
    costUsd: turn.costUsd + (event.costUsd ?? 0),
    // Absent (journals from before costs were recorded) is not said to be unpriced: nothing is known either way.
    unpricedCalls: turn.unpricedCalls + (event.costUsd === null ? 1 : 0),
    lastStepAt: turn.runningSince === null ? turn.lastStepAt : at,
  }));
}

/** Files were saved in the turn: the paths the agent changed join its list, but not a turn's first save's (someone else's). */
export function turnFilesChanged(view: SessionView, event: Extract<RuntimeEvent, { type: 'files_snapshotted' }>): SessionView {
  if (event.turnStart === true || event.changed.length === 0) return view;
  const known = new Set(view.turns[event.turnId]?.changedPaths);
  const added = event.changed.filter((path) => !known.has(path));
  if (added.length === 0) return view;
  return withTurn(view, event.turnId, (turn) => ({ ...turn, changedPaths: [...turn.changedPaths, ...added] }));
}

/** The workspace's check command ran at the end of the turn. */
export function turnChecked(view: SessionView, event: Extract<RuntimeEvent, { type: 'check_ran' }>): SessionView {
  return withTurn(view, event.turnId, (turn) => ({ ...turn, check: event.result }));
}

/** A turn ended at `at`: its running stretch is added to its time. */
export function turnEnded(view: SessionView, turnId: string, end: ViewTurnEnd, at: number): SessionView {
  return withTurn(view, turnId, (turn) => ({
    ...turn,
    end,
    durationMs:
      turn.durationMs === null || turn.runningSince === null ? turn.durationMs : turn.durationMs + Math.max(0, at - turn.runningSince),
    runningSince: null,
    lastStepAt: null,
  }));
}

/** The app stopped while the turn ran: its stretch is taken to have ended at its newest step. */
export function turnInterrupted(view: SessionView, turnId: string): SessionView {
  const turn = view.turns[turnId];
  if (!turn || turn.runningSince === null) return view;
  return turnEnded(view, turnId, 'interrupted', turn.lastStepAt ?? turn.runningSince);
}
