/*
 * The Tools section of Settings: every tool, built-in or from an MCP server (the person's own or a trusted folder's),
 * each with a switch that stops it from ever running.
 */

import { useState } from 'react';
import type { ToolInfo } from '../../../shared/ipc/contract';
import { subscription, useDisposables } from '../disposables';
import { useAppState, type AppStore } from '../store';
import { RiskBadge } from '../tool-calls/ToolCard';
import { SettingsSection, settingField } from './SettingsSection';

const builtIn = 'Built-in';

/** The tools by where they come from: the built-in ones first, then each MCP server's, a folder's own under its folder. */
function grouped(tools: readonly ToolInfo[]): Array<[string, ToolInfo[]]> {
  const groups = new Map<string, ToolInfo[]>([[builtIn, []]]);
  for (const tool of tools) {
    const server = tool.folder === undefined ? `${tool.server} (MCP server)` : `${tool.server} (MCP server of ${tool.folder})`;
    const group = tool.server === null ? builtIn : server;
    groups.set(group, [...(groups.get(group) ?? []), tool]);
  }
  return [...groups].filter(([, members]) => members.length > 0);
}

/**
 * Every tool there is, grouped, each with a switch that denies it: a denied tool is not offered to the model, and a
 * call to it is refused before any grant or autonomy level. Tools denied while their server is not running stay
 * listed, so they can be allowed again.
 */
export function ToolSettings({ store }: { store: AppStore }) {
  const settings = useAppState(store, (state) => state.settings);
  const [tools, setTools] = useState<ToolInfo[]>([]);
  const field = settingField('tools');
  useDisposables(
    (disposables) => {
      const load = (): void => void store.attempt(async () => setTools(await store.call('tool:list', {})));
      load();
      // An MCP server that starts, stops or restarts changes the tools there are.
      disposables.add(subscription(store.api.on['mcp:changed'](load)));
    },
    [store],
  );
  if (!settings) return null;
  const denied = new Set(settings.deniedTools);
  const setDenied = (name: string, deny: boolean): void => {
    const next = deny
      ? [...settings.deniedTools.filter((other) => other !== name), name]
      : settings.deniedTools.filter((other) => other !== name);
    void store.attempt(async () => store.setSettings(await store.call('settings:update', { deniedTools: next })));
  };
  const absent = settings.deniedTools.filter((name) => !tools.some((tool) => tool.name === name));
  const row = (name: string, description: string, risk: ToolInfo['risk'] | null, group: string) => (
    <li key={name} {...field(`${name} never run`, `${group} ${description}`)}>
      <code>{name}</code>
      {risk && <RiskBadge risk={risk} />}
      <span className="muted small tool-description" title={description}>
        {description.split('\n')[0]}
      </span>
      <label className="row small">
        <input
          type="checkbox"
          aria-label={`Never run ${name}`}
          checked={denied.has(name)}
          onChange={(event) => setDenied(name, event.target.checked)}
        />
        never run
      </label>
    </li>
  );
  return (
    <SettingsSection
      id="tools"
      description="A tool set to never run is not offered to the model, and a call to it is refused whatever the autonomy or grants. A folder's tool is set by its name, in every folder that has one of that name."
    >
      {grouped(tools).map(([group, members]) => (
        <div key={group} className="settings-group">
          <h4>{group}</h4>
          <ul className="tool-settings-list" aria-label={`${group} tools`}>
            {members.map((tool) => row(tool.name, tool.description, tool.risk, group))}
          </ul>
        </div>
      ))}
      {absent.length > 0 && (
        <div className="settings-group">
          <h4>Not available now</h4>
          <ul className="tool-settings-list" aria-label="Denied tools not available now">
            {absent.map((name) => row(name, 'Its server is not running.', null, 'Not available now'))}
          </ul>
        </div>
      )}
    </SettingsSection>
  );
}
