/*
 * The status bar: the session's state, Stop, the model and autonomy pickers, the inbox, the sandbox, trust grants, the
 * context window and the tokens used.
 */

import { IndexProgress } from './IndexProgress';
import { busyStatuses } from '../../../shared/domain';
import type { SessionView } from '../../../shared/session-view';
import { unpricedWords, usdWords } from '../chrome/figures';
import { statusLabel } from '../chrome/status';
import type { Layout } from '../layout';
import { ModelPicker } from '../models/ModelPicker';
import { useAppState, type AppStore } from '../store';
import { AutonomyPicker } from './AutonomyPicker';
import { ContextMeter } from './ContextMeter';
import { Inbox } from './Inbox';
import { MoreMenu } from './MoreMenu';
import { useStatusBarFold } from './status-bar-fold';
import { TrustGrants } from './TrustGrants';

/** What the session is doing: retrying, the tool that runs, or its state in words. */
function SessionState({ view }: { view: SessionView | undefined }) {
  const status = view?.status ?? 'idle';
  const running =
    status === 'executing' ? view?.messages.flatMap((message) => message.toolCalls).find((call) => call.state === 'running') : undefined;
  return (
    <span className={`state status-${status}`} role="status" aria-live="polite" aria-label="Session state">
      {view?.retry ? `retrying (attempt ${view.retry.attempt + 1})…` : running ? `running ${running.tool}` : statusLabel(status)}
    </span>
  );
}

/**
 * The session's cost in words: the sum, and the calls it leaves out for want of a price (so it is at least that); on a
 * local model nothing when it cost nothing.
 */
function costWords(usage: SessionView['usage'], local: boolean): string {
  const unpriced = usage.unpricedCalls > 0 ? unpricedWords(usage.unpricedCalls) : null;
  if (usage.costUsd === 0 && unpriced) return ` · ${unpriced}`;
  const cost = !local || usage.costUsd > 0 ? ` · $${usage.costUsd.toFixed(4)}` : '';
  return unpriced ? `${cost} + ${unpriced}` : cost;
}

/**
 * The tokens of the whole session; on a local model also its speed, and its cost only when there is one (a local
 * model costs nothing), with the calls that had no price.
 */
/**
 * The errors and warnings language servers found in the files the agent changed in this session, at their latest check;
 * nothing when none was checked.
 */
function ProblemsCount({ problems }: { problems: SessionView['problems'] }) {
  const files = Object.entries(problems);
  if (files.length === 0) return null;
  const errors = files.reduce((sum, [, count]) => sum + count.errors, 0);
  const warnings = files.reduce((sum, [, count]) => sum + count.warnings, 0);
  const withProblems = files.filter(([, count]) => count.errors + count.warnings > 0);
  const title =
    withProblems.length === 0
      ? `No problems in the ${files.length === 1 ? 'file' : `${files.length} files`} the agent changed, at their latest check`
      : withProblems.map(([path, count]) => `${path}: ${count.errors} errors, ${count.warnings} warnings`).join('\n');
  return (
    <span className={errors > 0 ? 'problems-count has-errors' : 'problems-count'} role="status" aria-label="Problems" title={title}>
      {errors === 0 && warnings === 0 ? '✓ no problems' : `✖ ${errors} · ⚠ ${warnings}`}
    </span>
  );
}

function TokenUsage({ usage, local }: { usage: SessionView['usage']; local: boolean }) {
  const seconds = usage.modelMs / 1000;
  const rate = seconds > 0 ? Math.round(usage.outputTokens / seconds) : 0;
  const unpriced =
    usage.unpricedCalls > 0
      ? ` ${unpricedWords(usage.unpricedCalls)} count as nothing, so the cost (${usdWords(usage.costUsd)}) is at least that: set a model's price in Settings, under Model prices.`
      : '';
  return (
    <span
      className="usage muted"
      aria-label="Token usage"
      title={`Tokens over the whole session, every turn and model call. Read again: the share of the prompts' tokens after their unchanged beginning, which a server that keeps the prompt it read must read again.${unpriced}`}
    >
      {usage.inputTokens} in · {usage.outputTokens} out{local && rate > 0 ? ` · ${rate} tok/s` : ''}
      {usage.promptTokens > 0 ? ` · ${Math.round((usage.rereadTokens / usage.promptTokens) * 100)}% read again` : ''}
      {costWords(usage, local)}
    </span>
  );
}

/**
 * The bar across the top of the window: the panels' toggles, the session's state with Stop, its model and autonomy,
 * the inbox, the sandbox, trust grants, the context window, token usage, shortcuts and Settings. What does not fit
 * folds into "More".
 */
export function StatusBar({
  store,
  onOpenSettings,
  onOpenShortcuts,
  onToggleLeft,
  onToggleRight,
  layout,
}: {
  store: AppStore;
  onOpenSettings: () => void;
  onOpenShortcuts: () => void;
  onToggleLeft: () => void;
  onToggleRight: () => void;
  layout: Layout;
}) {
  const selectedId = useAppState(store, (state) => state.selectedId);
  const info = useAppState(store, (state) => state.info);
  const view = useAppState(store, (state) => (state.selectedId ? state.views[state.selectedId] : undefined));
  const local = useAppState(store, (state) => {
    const session = state.sessions.find((candidate) => candidate.id === state.selectedId);
    const provider = state.providers.find((candidate) => candidate.id === (session?.model ?? state.settings?.defaultModel)?.providerId);
    return provider ? provider.kind !== 'anthropic' : true;
  });
  const busy = busyStatuses.has(view?.status ?? 'idle');
  const { bar, fold, inBar, folded, moreOpen, setMoreOpen } = useStatusBarFold(store);
  return (
    <header className="status-bar" aria-label="Status" ref={bar} data-fold={fold} data-region="status">
      <button
        type="button"
        className="icon"
        aria-label={layout.leftOpen ? 'Hide sessions' : 'Show sessions'}
        aria-pressed={layout.leftOpen}
        title="Sessions (Ctrl+B)"
        onClick={onToggleLeft}
      >
        ☰
      </button>
      {fold < 1 && <strong className="brand">Agent Workbench</strong>}
      <SessionState view={view} />
      {busy && selectedId && (
        <button
          type="button"
          className="danger"
          aria-label="Stop"
          aria-keyshortcuts="Escape"
          title="Stop (Esc)"
          onClick={() => void store.attempt(() => store.call('run:cancel', { sessionId: selectedId }))}
        >
          ■ Stop
        </button>
      )}
      {selectedId && <ModelPicker store={store} sessionId={selectedId} />}
      {selectedId && <AutonomyPicker store={store} sessionId={selectedId} />}
      <span className="spacer" />
      <IndexProgress store={store} />
      {view && <ProblemsCount problems={view.problems} />}
      <Inbox store={store} />
      {info &&
        inBar(
          3,
          <span
            key="sandbox"
            className={info.sandbox.available ? 'sandbox sandbox-on' : 'sandbox sandbox-off'}
            title={info.sandbox.description}
            aria-label="Sandbox"
          >
            {info.sandbox.available ? 'sandbox on' : 'no sandbox'}
          </span>,
        )}
      {info && !info.commandShell.available && (
        <span className="sandbox sandbox-off" title={info.commandShell.description} aria-label="Command shell">
          no shell
        </span>
      )}
      {inBar(6, <TrustGrants key="grants" store={store} />)}
      {view?.context &&
        selectedId &&
        inBar(
          5,
          <ContextMeter
            key="meter"
            store={store}
            sessionId={selectedId}
            context={view.context}
            usage={view.usage}
            busy={busy}
            stale={!busy && view.context.turnId !== undefined && view.context.turnId !== view.messages.at(-1)?.turnId}
          />,
        )}
      {view && inBar(2, <TokenUsage key="usage" usage={view.usage} local={local} />)}
      {inBar(
        4,
        <button
          key="shortcuts"
          type="button"
          className="icon"
          aria-label="Keyboard shortcuts"
          aria-keyshortcuts="Control+/"
          title="Keyboard shortcuts (Ctrl+/)"
          onClick={onOpenShortcuts}
        >
          ?
        </button>,
      )}
      <MoreMenu folded={folded} open={moreOpen} onOpen={setMoreOpen} />
      <button type="button" aria-label="Settings" aria-keyshortcuts="Control+," title="Settings (Ctrl+,)" onClick={onOpenSettings}>
        ⚙ Settings
      </button>
      <button
        type="button"
        className="icon"
        aria-label={layout.rightOpen ? 'Hide details' : 'Show details'}
        aria-pressed={layout.rightOpen}
        title="Details (Ctrl+J)"
        onClick={onToggleRight}
      >
        ◧
      </button>
    </header>
  );
}
