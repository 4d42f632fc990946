/*
 * The Budgets section of Settings: model calls, tool calls and time per turn, tokens and cost per session, each of
 * which can be off.
 */

import { useState } from 'react';
import type { BudgetSettings as Budgets } from '../../../shared/budgets';
import { unpricedWords, usdWords } from '../chrome/figures';
import { errorMessage } from '../client';
import { useAppState, type AppStore } from '../store';
import { SettingsSection, settingField } from './SettingsSection';

type BudgetField = 'modelCalls' | keyof Budgets;

interface BudgetRow {
  readonly field: BudgetField;
  readonly label: string;
  readonly unit: string;
  /** What the budget is set to when it is turned on. */
  readonly start: number;
  readonly step: number;
}

const rows: readonly BudgetRow[] = [
  { field: 'modelCalls', label: 'Model calls per turn', unit: 'calls', start: 25, step: 1 },
  { field: 'toolCalls', label: 'Tool calls per turn', unit: 'calls', start: 100, step: 1 },
  { field: 'wallMinutes', label: 'Working time per turn', unit: 'minutes', start: 30, step: 1 },
  { field: 'sessionTokens', label: 'Tokens per session (input and output)', unit: 'tokens', start: 1_000_000, step: 1000 },
  { field: 'sessionCostUsd', label: 'Cost per session (priced models only)', unit: 'US dollars', start: 5, step: 0.5 },
];

/**
 * The budgets: when one is reached the turn waits at a gate and asks whether to go on. Each can be off. A value the
 * app refuses (0, say) is explained here, where it was typed, and the budget keeps what it had.
 */
export function BudgetSettings({ store }: { store: AppStore }) {
  const settings = useAppState(store, (state) => state.settings);
  const usage = useAppState(store, (state) => (state.selectedId ? state.views[state.selectedId]?.usage : undefined));
  const [refusal, setRefusal] = useState<string | null>(null);
  const field = settingField('budgets');
  if (!settings) return null;
  const valueOf = (field: BudgetField): number | null => (field === 'modelCalls' ? settings.maxIterations : settings.budgets[field]);
  const save = async (field: BudgetField, value: number | null): Promise<void> => {
    try {
      const change = field === 'modelCalls' ? { maxIterations: value } : { budgets: { [field]: value } };
      store.setSettings(await store.call('settings:update', change));
      setRefusal(null);
    } catch (error) {
      setRefusal(errorMessage(error));
    }
  };
  return (
    <SettingsSection
      id="budgets"
      description="When a budget is reached the agent pauses and asks: continue with a little more, or stop. Time waiting for you is not counted."
    >
      <div className="form budgets">
        {rows.map((row) => {
          const value = valueOf(row.field);
          return (
            <div key={row.field} className="row budget-row" {...field(row.label, `budget limit in ${row.unit}`)}>
              <label>
                <input
                  type="checkbox"
                  aria-label={`Limit ${row.label.toLowerCase()}`}
                  checked={value !== null}
                  onChange={(event) => void save(row.field, event.target.checked ? row.start : null)}
                />{' '}
                {row.label}
              </label>
              <input
                aria-label={`${row.label} budget`}
                type="number"
                min={row.field === 'sessionCostUsd' ? 0.01 : 1}
                step={row.step}
                disabled={value === null}
                value={value ?? ''}
                onChange={(event) => Number.isFinite(event.target.valueAsNumber) && void save(row.field, event.target.valueAsNumber)}
              />
              <span className="muted small">{value === null ? 'no limit' : row.unit}</span>
            </div>
          );
        })}
      </div>
      {usage && usage.unpricedCalls > 0 && (
        <p className="notice small" aria-label="Calls without a price">
          This session has {unpricedWords(usage.unpricedCalls)}. The cost budget counts them as nothing: the session has cost at least{' '}
          {usdWords(usage.costUsd)}. Set their model&apos;s price under Model prices.
        </p>
      )}
      {refusal && (
        <p className="error small" role="alert" aria-label="Budget refused">
          {refusal}
        </p>
      )}
    </SettingsSection>
  );
}
