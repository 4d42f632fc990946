/*
 * The Prompt injection section of Settings: for which tool groups a result with signs of a prompt injection is held
 * until the person answers.
 */

import { everyMcpServer } from '../../../shared/guardrails';
import { builtInToolGroups, toolGroupLabels, type ToolGroup } from '../../../shared/tool-groups';
import { useAppState, type AppStore } from '../store';
import { SettingsSection, settingField } from './SettingsSection';

/**
 * For which tool groups a result with signs of a prompt injection waits for the person before the model sees it. Every
 * result is checked and a flagged one is marked on its card either way; this only says which are held.
 */
export function GuardrailSettings({ store }: { store: AppStore }) {
  const settings = useAppState(store, (state) => state.settings);
  const field = settingField('guardrails');
  if (!settings) return null;
  const held = new Set<string>(settings.heldToolGroups);
  const everyServer = held.has(everyMcpServer);
  const setHeld = (group: ToolGroup, hold: boolean): void => {
    const others = settings.heldToolGroups.filter((other) => other !== group);
    const next = hold ? [...others, group] : others;
    void store.attempt(async () => store.setSettings(await store.call('settings:update', { heldToolGroups: next })));
  };
  const row = (group: ToolGroup, label: string, disabled = false) => (
    <li key={group} {...field(`Hold flagged results of ${label}`)}>
      <label className="row small">
        <input
          type="checkbox"
          aria-label={`Hold flagged results of ${label}`}
          checked={held.has(group) || disabled}
          disabled={disabled}
          onChange={(event) => setHeld(group, event.target.checked)}
        />
        {label}
      </label>
    </li>
  );
  return (
    <SettingsSection
      id="guardrails"
      description="Every tool result is checked for signs of a prompt injection (instructions aimed at the model, requests to send data away or to ignore you, hidden or encoded text) and marked on its card. For the groups ticked here, a flagged result waits for you to let the model see it or to withhold it."
    >
      <ul className="tool-settings-list" aria-label="Hold flagged results of">
        {builtInToolGroups.map((group) => row(group, toolGroupLabels[group]))}
        {row(everyMcpServer, 'Every MCP server, also those added later')}
        {Object.keys(settings.mcpServers).map((name) => row(`mcp:${name}`, `MCP server ${name}`, everyServer))}
      </ul>
    </SettingsSection>
  );
}
