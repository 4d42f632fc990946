import { busyStatuses } from '../../../shared/domain';
import { useAppState, type AppStore } from '../store';
import { statusLabel } from './status';
import { TrustGrants } from './TrustGrants';

export function StatusBar({ store, onOpenSettings }: { store: AppStore; onOpenSettings: () => void }) {
  const selectedId = useAppState(store, (state) => state.selectedId);
  const info = useAppState(store, (state) => state.info);
  const view = useAppState(store, (state) => (state.selectedId ? state.views[state.selectedId] : undefined));
  const status = view?.status ?? 'idle';
  const busy = busyStatuses.has(status);
  const seconds = (view?.usage.modelMs ?? 0) / 1000;
  const rate = seconds > 0 ? Math.round((view?.usage.outputTokens ?? 0) / seconds) : 0;
  return (
    <header className="status-bar" aria-label="Status">
      <strong className="brand">Agent Workbench</strong>
      <span className={`state status-${status}`} role="status" aria-live="polite" aria-label="Session state">
        {view?.retry ? `retrying (attempt ${view.retry.attempt + 1})…` : statusLabel(status)}
      </span>
      {busy && selectedId && (
        <button type="button" className="danger" aria-label="Stop" title="Stop (Esc)" onClick={() => void store.attempt(() => store.call('run:cancel', { sessionId: selectedId }))}>
          ■ Stop
        </button>
      )}
      <span className="spacer" />
      {info && (
        <span className={info.sandbox.available ? 'sandbox sandbox-on' : 'sandbox sandbox-off'} title={info.sandbox.description} aria-label="Sandbox">
          {info.sandbox.available ? 'sandbox on' : 'no sandbox'}
        </span>
      )}
      <TrustGrants store={store} />
      {view && (
        <span className="usage muted" aria-label="Token usage">
          {view.usage.inputTokens} in · {view.usage.outputTokens} out{rate > 0 ? ` · ${rate} tok/s` : ''}
          {view.usage.costUsd > 0 ? ` · $${view.usage.costUsd.toFixed(4)}` : ''}
        </span>
      )}
      <button type="button" aria-label="Settings" onClick={onOpenSettings}>
        ⚙ Settings
      </button>
    </header>
  );
}
