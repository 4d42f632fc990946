/*
 * The MCP servers section of Settings: the `mcpServers` JSON, each server's state and tools, and a switch to disable
 * one.
 */

import { useRef, useState } from 'react';
import type { McpServerStatus } from '../../../shared/domain';
import { errorMessage } from '../client';
import { subscription, useDisposables } from '../disposables';
import type { AppStore } from '../store';
import { SettingsSection, settingField } from './SettingsSection';

const example = `{
  "filesystem": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/path/to/folder"] },
  "remote": { "url": "https://example.com/mcp" }
}`;

/** MCP servers: the `mcpServers` JSON, each server's state and tools, and a switch to disable one. */
export function McpSettings({ store }: { store: AppStore }) {
  const [servers, setServers] = useState<McpServerStatus[]>([]);
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  /** The person has typed: what the settings held when the section opened no longer replaces their text. */
  const typed = useRef(false);
  const field = settingField('mcp');

  useDisposables(
    (disposables) => {
      void store.attempt(async () => {
        setServers(await store.call('mcp:list', {}));
        const saved = JSON.stringify((await store.call('settings:get', {})).mcpServers, null, 2);
        if (!typed.current) setText(saved);
      });
      disposables.add(subscription(store.api.on['mcp:changed']((payload) => setServers(payload.servers))));
    },
    [store],
  );

  const save = async (): Promise<void> => {
    setError(null);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text || '{}');
    } catch (caught) {
      setError(`Not valid JSON: ${errorMessage(caught)}`);
      return;
    }
    try {
      setServers(await store.call('mcp:configure', { mcpServers: parsed as never }));
    } catch (caught) {
      setError(errorMessage(caught));
    }
  };

  return (
    <SettingsSection id="mcp">
      <ul className="providers">
        {servers.map((server) => (
          <li key={server.name} className="card row" {...field(server.name, `${server.transport} ${server.state} MCP server`)}>
            <strong>{server.name}</strong>
            <span className={`badge mcp-${server.state}`}>{server.state}</span>
            <span className="muted small">
              {server.transport} · {server.tools.length} tools{server.restarts > 0 ? ` · restarted ${server.restarts}×` : ''}
            </span>
            {server.error && <span className="error small">{server.error}</span>}
            <span className="spacer" />
            <label className="row small">
              <input
                type="checkbox"
                aria-label={`Enable ${server.name}`}
                checked={server.state !== 'disabled'}
                onChange={(event) =>
                  void store.attempt(async () =>
                    setServers(await store.call('mcp:setEnabled', { name: server.name, enabled: event.target.checked })),
                  )
                }
              />
              enabled
            </label>
          </li>
        ))}
      </ul>
      <label className="form" {...field('MCP configuration', 'The mcpServers object: command, args, env, url')}>
        <span className="muted small">The mcpServers object, as in other tools&apos; configuration:</span>
        <textarea
          aria-label="MCP configuration"
          rows={6}
          spellCheck={false}
          placeholder={example}
          value={text}
          onChange={(event) => {
            typed.current = true;
            setText(event.target.value);
          }}
        />
      </label>
      <div className="row" {...field('Save and restart servers')}>
        <button type="button" onClick={() => void save()}>
          Save and restart servers
        </button>
        {error && (
          <span className="error small" role="alert">
            {error}
          </span>
        )}
      </div>
    </SettingsSection>
  );
}
