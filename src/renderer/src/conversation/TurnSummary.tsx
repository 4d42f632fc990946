/*
 * The line under a turn's last message once the turn has ended: how long it took, its tokens, its cost, the paths it
 * changed (opening them in the Changes tab), and how it ended when it did not finish.
 */

import { Fragment, type ReactNode } from 'react';
import type { ViewTurn, ViewTurnEnd } from '../../../shared/session-view';
import type { CheckResult } from '../../../shared/diagnostics';
import { durationWords, tokenWords, unpricedWords, usdWords } from '../chrome/figures';
import type { AppStore } from '../store';

const endWords: Record<ViewTurnEnd, string | null> = {
  completed: null,
  completed_with_errors: 'Some tool calls failed',
  failed: 'Failed',
  cancelled: 'Stopped',
  interrupted: 'Interrupted',
};

/**
 * The turn's cost in words: the sum, with the calls it could not count ("$0.0042 + 1 call without a price"), "no price"
 * when no call had one, and nothing when every call was priced at nothing (a model on this machine).
 */
export function turnCostWords(turn: Pick<ViewTurn, 'modelCalls' | 'costUsd' | 'unpricedCalls'>): string | null {
  if (turn.modelCalls === 0) return null;
  if (turn.unpricedCalls === turn.modelCalls) return 'no price';
  if (turn.unpricedCalls > 0) return `${usdWords(turn.costUsd)} + ${unpricedWords(turn.unpricedCalls)}`;
  return turn.costUsd > 0 ? usdWords(turn.costUsd) : null;
}

/** The same figures in full sentences, for the line's tooltip. */
function details(turn: ViewTurn): string {
  const sentences: string[] = [];
  if (turn.durationMs !== null) sentences.push(`Took ${durationWords(turn.durationMs)} from start to end, waits for you included.`);
  const calls = `${turn.modelCalls} model ${turn.modelCalls === 1 ? 'call' : 'calls'}`;
  const cached = turn.cacheReadTokens === null ? '' : `, ${tokenWords(turn.cacheReadTokens)} of them served by the server's cache`;
  sentences.push(`${calls}: ${tokenWords(turn.inputTokens)} tokens in${cached}; ${tokenWords(turn.outputTokens)} out.`);
  if (turn.unpricedCalls > 0)
    sentences.push(`${unpricedWords(turn.unpricedCalls)}: the cost counts them as nothing. Set a model's price in Settings.`);
  return sentences.join(' ');
}

/** A turn's figures under its last message; nothing while the turn runs. */
export function TurnSummary({ store, sessionId, turnId, turn }: { store: AppStore; sessionId: string; turnId: string; turn: ViewTurn }) {
  if (turn.end === null) return null;
  const end = endWords[turn.end];
  const cost = turnCostWords(turn);
  const cached = turn.cacheReadTokens === null ? '' : ` (${tokenWords(turn.cacheReadTokens)} cached)`;
  const parts = [
    ...(turn.durationMs === null ? [] : [durationWords(turn.durationMs)]),
    ...(turn.modelCalls === 0 ? [] : [`${tokenWords(turn.inputTokens)} in${cached}`, `${tokenWords(turn.outputTokens)} out`]),
    ...(cost === null ? [] : [cost]),
  ];
  const paths = turn.changedPaths.length;
  const pieces: Array<{ readonly key: string; readonly node: ReactNode }> = [
    ...(end ? [{ key: 'end', node: <strong className={`turn-end turn-end-${turn.end}`}>{end}</strong> }] : []),
    ...parts.map((part, index) => ({ key: `figure-${index}`, node: part })),
    ...(paths > 0
      ? [
          {
            key: 'paths',
            node: (
              <button
                type="button"
                className="link small"
                title="What this turn changed, in the Changes tab"
                onClick={() => store.requestChanges({ sessionId, turnId })}
              >
                {paths} {paths === 1 ? 'path' : 'paths'} changed
              </button>
            ),
          },
        ]
      : []),
  ];
  return (
    <>
      <span className="turn-summary muted small" role="group" aria-label="Turn summary" title={details(turn)}>
        {pieces.map((piece, index) => (
          <Fragment key={piece.key}>
            {index > 0 && ' · '}
            {piece.node}
          </Fragment>
        ))}
      </span>
      {turn.check && <TurnCheck store={store} sessionId={sessionId} check={turn.check} />}
    </>
  );
}

const checkWords: Record<CheckResult['status'], string> = { passed: 'passed', failed: 'failed', stopped: 'was stopped' };

/**
 * What the workspace's check gave after the turn, its output folded, and (when it failed) a way to hand the failure to
 * the agent as the next message.
 */
function TurnCheck({ store, sessionId, check }: { store: AppStore; sessionId: string; check: CheckResult }) {
  const tail = check.output.split('\n').slice(-60).join('\n');
  return (
    <details className={`turn-check turn-check-${check.status} small`} role="group" aria-label="Check after the turn">
      <summary>
        Check <code>{check.command}</code> {checkWords[check.status]}
        {check.exitCode !== null && check.status !== 'passed' ? ` (exit ${check.exitCode})` : ''} in {durationWords(check.durationMs)}
      </summary>
      <pre>{tail}</pre>
      {check.status === 'failed' && (
        <button
          type="button"
          onClick={() =>
            void store.attempt(() =>
              store.call('run:send', {
                sessionId,
                text: `The check \`${check.command}\` failed after your changes (exit ${check.exitCode ?? '?'}). Its output ends with:\n\n\`\`\`\n${tail.slice(-6000)}\n\`\`\`\n\nPlease fix what it reports.`,
              }),
            )
          }
        >
          Ask the agent to fix this
        </button>
      )}
    </details>
  );
}
