import { useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { busyStatuses, type Autonomy } from '../../../shared/domain';
import type { ViewContext } from '../../../shared/session-view';
import { observeResize, useDisposables } from '../disposables';
import { effectiveModel } from '../models/model-readiness';
import type { Layout } from '../layout';
import { useAppState, type AppStore } from '../store';
import { AutonomyOptions, autonomyLabels } from './AutonomyOptions';
import { ModelPicker } from '../models/ModelPicker';
import { statusLabel } from '../chrome/status';
import { TrustGrants } from './TrustGrants';

/** How far the status bar folds: 1 hides the name, 2 to 6 move the usage, sandbox, shortcuts, window and grants into "More". */
const maxFold = 6;

/** Every session waiting for an answer, whichever is shown: a badge, and the list one click away. */
function Inbox({ store }: { store: AppStore }) {
  // A selector must return the same value for the same state: pick the sessions list, then filter.
  const sessions = useAppState(store, (state) => state.sessions);
  const waiting = sessions.filter((session) => session.status === 'waiting_approval');
  const [open, setOpen] = useState(false);
  return (
    <div className="inbox">
      <button
        type="button"
        aria-label={`Approvals waiting: ${waiting.length}`}
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        className={waiting.length > 0 ? 'inbox-button pending' : 'inbox-button'}
      >
        Inbox{waiting.length > 0 && <span className="inbox-badge">{waiting.length}</span>}
      </button>
      {open && (
        <ul className="inbox-list" aria-label="Waiting for you">
          {waiting.length === 0 && <li className="muted small">Nothing is waiting for you.</li>}
          {waiting.map((session) => (
            <li key={session.id}>
              <button
                type="button"
                className="link"
                onClick={() => {
                  setOpen(false);
                  void store.select(session.id);
                }}
              >
                {session.title}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function AutonomyPicker({ store, sessionId }: { store: AppStore; sessionId: string }) {
  const autonomy = useAppState(store, (state) => state.sessions.find((candidate) => candidate.id === sessionId)?.autonomy ?? 'L1');
  return (
    <label className="autonomy">
      <span className="muted small">Autonomy</span>
      <select
        aria-label="Autonomy"
        title={`Autonomy: ${autonomyLabels[autonomy]}`}
        value={autonomy}
        onChange={(event) =>
          void store.attempt(async () =>
            store.upsertSession(await store.call('session:setAutonomy', { sessionId, autonomy: event.target.value as Autonomy })),
          )
        }
      >
        <AutonomyOptions />
      </select>
    </label>
  );
}

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
  const status = view?.status ?? 'idle';
  const busy = busyStatuses.has(status);
  const running =
    status === 'executing' ? view?.messages.flatMap((message) => message.toolCalls).find((call) => call.state === 'running') : undefined;
  const seconds = (view?.usage.modelMs ?? 0) / 1000;
  const rate = seconds > 0 ? Math.round((view?.usage.outputTokens ?? 0) / seconds) : 0;

  // Folded into "More" by priority until the bar fits: nothing is ever cut off.
  const bar = useRef<HTMLElement>(null);
  const [fold, setFold] = useState(0);
  const [, setWidthSeen] = useState(0);
  // Where the "More" list shows: under its button, outside the bar, which clips what overflows it.
  const [moreAt, setMoreAt] = useState<{ top: number; right: number } | null>(null);
  // What the bar holds changed (a Stop button, a grant, another session): start over from everything in it. Counts that
  // tick while a turn streams are not part of this, or the bar would unfold and fold every frame.
  const grantCount = useAppState(store, (state) => state.grants.length);
  const endpointState = useAppState(store, (state) => {
    const providerId = state.selectedId ? effectiveModel(state, state.selectedId)?.providerId : undefined;
    return providerId ? (state.endpoints[providerId]?.state ?? '') : '';
  });
  const contents = `${selectedId}|${status}|${grantCount}|${view?.context ? 1 : 0}|${endpointState}|${info ? 1 : 0}`;
  useLayoutEffect(() => {
    setFold(0);
  }, [contents]);
  useLayoutEffect(() => {
    const element = bar.current;
    if (element && fold < maxFold && element.scrollWidth > element.clientWidth + 1) setFold(fold + 1);
  });
  useDisposables((disposables) => {
    const element = bar.current;
    // A new width starts over from everything in the bar, then folds again what does not fit. Only the width counts:
    // folding can change the bar's height, which must not start it over.
    let width = element?.clientWidth ?? 0;
    if (element)
      disposables.add(
        observeResize(element, () => {
          if (element.clientWidth === width) return;
          width = element.clientWidth;
          setFold(0);
          // Measured again even when nothing was folded (a narrower bar from a wide one).
          setWidthSeen(width);
        }),
      );
  }, []);
  useDisposables(
    (disposables) => {
      if (moreAt === null) return;
      disposables.listen(window, 'keydown', (event: KeyboardEvent) => {
        if (event.key === 'Escape') setMoreAt(null);
      });
      disposables.listen(window, 'mousedown', (event: MouseEvent) => {
        if (!(event.target instanceof Element) || !event.target.closest('.status-more')) setMoreAt(null);
      });
    },
    [moreAt],
  );
  useLayoutEffect(() => {
    // Nothing folded: no list to keep open.
    if (fold < 2) setMoreAt(null);
  }, [fold]);
  const folded: ReactNode[] = [];
  const inBar = (level: number, item: ReactNode): ReactNode => {
    if (fold < level) return item;
    folded.push(item);
    return null;
  };
  return (
    <header className="status-bar" aria-label="Status" ref={bar} data-fold={fold}>
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
      <span className={`state status-${status}`} role="status" aria-live="polite" aria-label="Session state">
        {view?.retry ? `retrying (attempt ${view.retry.attempt + 1})…` : running ? `running ${running.tool}` : statusLabel(status)}
      </span>
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
            busy={busy}
            stale={!busy && view.context.turnId !== undefined && view.context.turnId !== view.messages.at(-1)?.turnId}
          />,
        )}
      {view &&
        inBar(
          2,
          <span
            key="usage"
            className="usage muted"
            aria-label="Token usage"
            title="Tokens over the whole session, every turn and model call"
          >
            {view.usage.inputTokens} in · {view.usage.outputTokens} out{local && rate > 0 ? ` · ${rate} tok/s` : ''}
            {!local || view.usage.costUsd > 0 ? ` · $${view.usage.costUsd.toFixed(4)}` : ''}
          </span>,
        )}
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
      {folded.length > 0 && (
        <div className="status-more">
          <button
            type="button"
            aria-label="More"
            aria-expanded={moreAt !== null}
            title="More"
            onClick={(event) => {
              const place = event.currentTarget.getBoundingClientRect();
              setMoreAt(moreAt ? null : { top: place.bottom + 6, right: window.innerWidth - place.right });
            }}
          >
            ⋯
          </button>
          {moreAt && (
            <div
              className="status-more-list"
              role="group"
              aria-label="More of the status bar"
              style={{ top: moreAt.top, right: moreAt.right }}
            >
              {folded}
            </div>
          )}
        </div>
      )}
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

const countingLabels = {
  tokenizer: "counted with the server's tokenizer",
  usage: "estimated from the server's own counts",
  estimate: 'estimated',
};
const sourceLabels = {
  setting: 'set in Settings',
  server: 'reported by the server',
  learned: 'learned from the server',
  default: 'a safe default',
};

/** How much of the model's window the last request took; amber from the point where older messages get summarized. */
function ContextMeter({
  store,
  sessionId,
  context,
  busy,
  stale,
}: {
  store: AppStore;
  sessionId: string;
  context: ViewContext;
  busy: boolean;
  /** The last turn ended (failed or stopped) before it measured a request: this one is an earlier turn's. */
  stale: boolean;
}) {
  const [open, setOpen] = useState(false);
  const [instructions, setInstructions] = useState('');
  const share = Math.min(1, context.tokens / context.window);
  const level = context.tokens >= context.threshold ? 'high' : 'ok';
  const title = [
    ...(stale ? ['From an earlier turn: the last turn ended before it sent a request.'] : []),
    `Last request: about ${context.tokens} of ${context.window} tokens (${countingLabels[context.counting]}).`,
    `Window: ${sourceLabels[context.source]} (${context.detail}).`,
    `Older messages are summarized above ${context.threshold}; ${context.reserve} are kept for the answer.`,
    context.shortened > 0 ? `${context.shortened} old tool results were shortened.` : '',
    `Largest request so far: ${context.peak}.`,
  ]
    .filter(Boolean)
    .join('\n');
  return (
    <span className={`context-meter context-${level}${stale ? ' context-stale' : ''}`}>
      <button type="button" className="link" aria-label="Context window" title={title} aria-expanded={open} onClick={() => setOpen(!open)}>
        <span className="context-bar" aria-hidden="true">
          <span style={{ width: `${Math.round(share * 100)}%` }} />
        </span>
        {context.tokens.toLocaleString('en-US')} / {context.window.toLocaleString('en-US')}
        {context.source === 'default' ? ' ?' : ''}
      </button>
      {open && (
        <form
          className="context-popover"
          aria-label="Summarize the conversation"
          onSubmit={(event) => {
            event.preventDefault();
            setOpen(false);
            const text = instructions.trim();
            void store.attempt(() => store.call('session:compact', { sessionId, ...(text ? { instructions: text } : {}) }));
          }}
        >
          <p className="small">{title}</p>
          {context.source === 'default' && (
            <p className="small notice">
              The server does not say which window it loaded. If you know it, set it for this model in Settings.
            </p>
          )}
          <input
            aria-label="What the summary should keep"
            placeholder="What the summary should keep (optional)"
            value={instructions}
            maxLength={2000}
            onChange={(event) => setInstructions(event.target.value)}
          />
          <button type="submit" disabled={busy}>
            Summarize older messages now
          </button>
        </form>
      )}
    </span>
  );
}
