/*
 * The model doctor: what checks of models found (tool calls, window, reasoning, speed, problems with their fixes), in
 * Settings and beside the model picker.
 */

import { useRef, useState } from 'react';
import { modelSettingOf, type ModelCheck, type ToolProtocol } from '../../../shared/domain';
import { useAppState, type AppStore } from '../store';
import { Popover } from '../chrome/Popover';

const toolWords: Record<ModelCheck['tools']['status'], string> = {
  works: 'native tool calls work',
  refused: 'the server refuses tool definitions',
  malformed: 'native tool calls come back malformed',
  not_called: 'the model does not make native tool calls',
  failed: 'the tool probe failed',
  unchecked: 'not checked',
};

const reasoningWords: Record<ModelCheck['reasoning'], string> = {
  field: 'in a field of its own',
  inline: 'inline, in <think> tags (shown as reasoning)',
  none: 'none seen',
  unchecked: 'not checked',
};

const tokens = (value: number | null): string => (value === null ? 'not said' : `${value.toLocaleString()} tokens`);

/** One line of what a check says about a model: its protocol, window, speed and problems. */
export function checkSummary(check: ModelCheck): string {
  if (!check.reachable.ok) return 'server not answering';
  const parts = [check.protocol === 'native' ? 'native tool calls' : 'text tool calls'];
  if (check.window.loaded !== null) parts.push(tokens(check.window.loaded));
  if (check.tokensPerSecond !== null) parts.push(`${check.tokensPerSecond} tokens/s`);
  if (check.problems.length > 0) parts.push(`${check.problems.length} ${check.problems.length === 1 ? 'problem' : 'problems'}`);
  return parts.join(' · ');
}

/** What a check found about one model, item by item, with a fix for each problem. */
export function ModelCheckCard({ check }: { check: ModelCheck }) {
  return (
    <div className="model-check" aria-label={`What the check of ${check.model} found`}>
      <dl className="model-check-items">
        <dt>Server</dt>
        <dd>{check.reachable.ok ? `answers (${check.reachable.detail})` : `not answering: ${check.reachable.detail}`}</dd>
        <dt>Window</dt>
        <dd>
          loaded {tokens(check.window.loaded)}, trained {tokens(check.window.trained)}
          <span className="muted small" title={check.window.route}>
            {' '}
            ({check.window.detail})
          </span>
        </dd>
        <dt>Tool calls</dt>
        <dd>
          {toolWords[check.tools.status]}: the app uses <strong>{check.protocol === 'native' ? 'native' : 'text'} tool calls</strong>
        </dd>
        <dt>Reasoning</dt>
        <dd>{reasoningWords[check.reasoning]}</dd>
        <dt>Speed</dt>
        <dd>{check.tokensPerSecond === null ? 'not measured' : `${check.tokensPerSecond} tokens per second`}</dd>
      </dl>
      {check.problems.length > 0 && (
        <ul className="model-check-problems" aria-label="Problems">
          {check.problems.map((item) => (
            <li key={item.problem}>
              <span className="problem">{item.problem}</span> <span className="fix">{item.fix}</span>
            </li>
          ))}
        </ul>
      )}
      <p className="muted small">
        {check.source === 'turn'
          ? 'Found during a turn; check the model for the rest.'
          : `Checked in ${Math.round(check.durationMs / 100) / 10} s`}
        {' · '}
        {new Date(check.checkedAt).toLocaleString()}
      </p>
    </div>
  );
}

/** The person's choice of tool protocol for one model, kept with its other per-model settings. */
function ProtocolChoice({ store, providerId, model }: { store: AppStore; providerId: string; model: string }) {
  const settings = useAppState(store, (state) => state.settings);
  if (!settings) return null;
  const current = modelSettingOf(settings, providerId, model);
  const choose = (toolProtocol: ToolProtocol): void =>
    void store.attempt(async () => store.setSettings(await store.call('model:configure', { providerId, model, toolProtocol })));
  return (
    <label className="small">
      Tool calls{' '}
      <select
        aria-label={`Tool calls of ${model}`}
        value={current.toolProtocol}
        onChange={(event) => choose(event.target.value as ToolProtocol)}
      >
        <option value="auto">as the check found</option>
        <option value="native">native</option>
        <option value="text">text</option>
      </select>
    </label>
  );
}

function CheckButton({ store, providerId, model, label }: { store: AppStore; providerId: string; model: string; label: string }) {
  const [checking, setChecking] = useState(false);
  return (
    <button
      type="button"
      disabled={checking}
      aria-label={`${label} ${model}`}
      onClick={() => {
        setChecking(true);
        void store
          .attempt(async () => store.putCheck(await store.call('model:check', { providerId, model })))
          .finally(() => setChecking(false));
      }}
    >
      {checking ? 'Checking…' : label}
    </button>
  );
}

/** Checks, one after another, the models of an endpoint that have no check yet. */
function CheckUncheckedButton({ store, providerId, checked }: { store: AppStore; providerId: string; checked: readonly string[] }) {
  const [progress, setProgress] = useState<string | null>(null);
  return (
    <button
      type="button"
      disabled={progress !== null}
      onClick={() => {
        setProgress('listing models…');
        void store
          .attempt(async () => {
            const models = (await store.call('provider:models', { providerId })).filter((model) => !checked.includes(model.id));
            for (const [place, model] of models.entries()) {
              setProgress(`checking ${place + 1} of ${models.length}…`);
              store.putCheck(await store.call('model:check', { providerId, model: model.id }));
            }
          })
          .finally(() => setProgress(null));
      }}
    >
      {progress ?? 'Check unchecked models'}
    </button>
  );
}

/** The checks of an endpoint's models in Settings, each with a way to check it again and to choose its tool calls. */
export function EndpointChecks({ store, providerId }: { store: AppStore; providerId: string }) {
  const checks = useAppState(store, (state) => state.checks).filter((check) => check.providerId === providerId);
  const unchecked = <CheckUncheckedButton store={store} providerId={providerId} checked={checks.map((check) => check.model)} />;
  if (checks.length === 0)
    return (
      <div className="row">
        <span className="muted small">No model checked yet.</span>
        {unchecked}
      </div>
    );
  return (
    <>
      <ul className="model-checks" aria-label="Model checks">
        {[...checks]
          .sort((a, b) => a.model.localeCompare(b.model))
          .map((check) => (
            <li key={check.model}>
              <details>
                <summary>
                  <strong>{check.model}</strong> <span className="muted small">{checkSummary(check)}</span>
                </summary>
                <ModelCheckCard check={check} />
                <div className="row">
                  <ProtocolChoice store={store} providerId={providerId} model={check.model} />
                  <CheckButton store={store} providerId={providerId} model={check.model} label="Check again" />
                </div>
              </details>
            </li>
          ))}
      </ul>
      {unchecked}
    </>
  );
}

/** Beside the model picker: what the check of the chosen model found, opening to the whole card. */
export function ModelDoctorBadge({ store, providerId, model }: { store: AppStore; providerId: string; model: string }) {
  const check = useAppState(store, (state) => state.checks.find((known) => known.providerId === providerId && known.model === model));
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  if (!providerId || !model) return null;
  const label = !check
    ? 'not checked'
    : !check.reachable.ok
      ? 'server not answering'
      : `${check.protocol} tools${check.problems.length > 0 ? ` · ${check.problems.length} ⚠` : ''}`;
  return (
    <span className="model-doctor">
      <button
        ref={button}
        type="button"
        className={`badge${check && check.problems.length > 0 ? ' warn' : ''}`}
        aria-expanded={open}
        aria-label={`Model check: ${label}`}
        onClick={() => setOpen(!open)}
      >
        {label}
      </button>
      {open && (
        <Popover
          anchor={button}
          onClose={() => setOpen(false)}
          align="start"
          className="popover model-doctor-popover"
          role="dialog"
          label={`Check of ${model}`}
        >
          {check ? <ModelCheckCard check={check} /> : <p className="small">This model has not been checked.</p>}
          <div className="row">
            <ProtocolChoice store={store} providerId={providerId} model={model} />
            <CheckButton store={store} providerId={providerId} model={model} label={check ? 'Check again' : 'Check'} />
          </div>
        </Popover>
      )}
    </span>
  );
}
