/*
 * The MCP servers section of Settings: each server's state and tools, with a switch to disable it, Edit and Remove; the
 * servers of trusted folders, with the file each comes from; a form that adds one; and the whole `mcpServers` JSON to
 * edit instead.
 */

import { counted } from '../../../shared/counts';
import { useRef, useState } from 'react';
import { mcpServersSchema, type McpServerConfig, type McpServerStatus, type Settings } from '../../../shared/domain';
import { errorMessage } from '../client';
import { subscription, useDisposables } from '../disposables';
import type { AppStore } from '../store';
import { draftOfServer, emptyMcpDraft, keepGrantedTrust } from './mcp-draft';
import { McpServerForm } from './McpServerForm';
import { SettingsSection, settingField } from './SettingsSection';

type McpServers = Settings['mcpServers'];

const example = `{
  "filesystem": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/path/to/folder"] },
  "remote": { "url": "https://example.com/mcp" }
}`;

const asJson = (servers: McpServers): string => JSON.stringify(servers, null, 2);

/** The whole `mcpServers` object as JSON, as in other tools' configuration, saved at once. */
function McpJsonEditor({
  text,
  onText,
  onSave,
}: {
  text: string;
  onText: (text: string) => void;
  onSave: (servers: McpServers) => Promise<void>;
}) {
  const [error, setError] = useState<string | null>(null);
  const save = async (): Promise<void> => {
    setError(null);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text || '{}');
    } catch (caught) {
      setError(`Not valid JSON: ${errorMessage(caught)}`);
      return;
    }
    const checked = mcpServersSchema.safeParse(parsed);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      setError(
        `Not saved: ${issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''}${issue?.message ?? 'not an mcpServers object'}.`,
      );
      return;
    }
    try {
      await onSave(checked.data);
    } catch (caught) {
      setError(errorMessage(caught));
    }
  };
  return (
    <>
      <label className="form">
        <span className="muted small">The mcpServers object, as in other tools&apos; configuration:</span>
        <textarea
          aria-label="MCP configuration"
          rows={8}
          spellCheck={false}
          placeholder={example}
          value={text}
          onChange={(event) => onText(event.target.value)}
        />
      </label>
      <div className="row">
        <button type="button" onClick={() => void save()}>
          Save and restart servers
        </button>
        {error && (
          <span className="error small" role="alert">
            {error}
          </span>
        )}
      </div>
    </>
  );
}

/**
 * The servers folders configure for themselves: where each comes from, its state and tools, and why it failed. Each
 * runs for its folder's sessions while the person trusts the folder, and is changed in the folder's own file, not here.
 */
function FolderServers({ servers }: { servers: readonly McpServerStatus[] }) {
  const field = settingField('mcp');
  const own = servers.flatMap((server) => (server.source ? [{ server, from: `${server.source.folder}/${server.source.file}` }] : []));
  if (own.length === 0) return null;
  return (
    <>
      <h4>From the folders you trust</h4>
      <p className="muted small">Started for a session in the folder, with its tools offered in that folder's sessions only.</p>
      <ul className="providers" aria-label="MCP servers of folders">
        {own.map(({ server, from }) => (
          <li
            key={`${from}\u0000${server.name}`}
            className="card row"
            {...field(`${server.name} ${from}`, `${server.state} MCP server of a folder`)}
          >
            <strong>{server.name}</strong>
            <span className={`badge mcp-${server.state}`}>{server.state}</span>
            <span className="muted small">
              {server.transport} · {counted(server.tools.length, 'tool')}
              {server.restarts > 0 ? ` · restarted ${server.restarts}×` : ''} · from <code>{from}</code>
            </span>
            {server.error && <span className="error small">{server.error}</span>}
            {(server.notes ?? []).map((note) => (
              <span key={note} className="muted small">
                {note}
              </span>
            ))}
          </li>
        ))}
      </ul>
    </>
  );
}

/**
 * MCP servers: each server's state and tools, with a switch to disable it, Edit and Remove; a form that adds one (or
 * changes the one being edited); or, with "Edit as JSON", the whole `mcpServers` object. Each way saves the whole
 * object through `mcp:configure`, which restarts the servers that changed.
 */
export function McpSettings({ store }: { store: AppStore }) {
  const [servers, setServers] = useState<McpServerStatus[]>([]);
  const [configs, setConfigs] = useState<McpServers>({});
  const [json, setJson] = useState<{ readonly text: string } | null>(null);
  /** The server the form changes; null: the form adds one. The key makes a fresh form for each. */
  const [editing, setEditing] = useState<{ readonly name: string | null; readonly key: number }>({ name: null, key: 0 });
  /** The person has typed JSON: what the settings held when it opened no longer replaces their text. */
  const typed = useRef(false);
  const field = settingField('mcp');

  const load = async (): Promise<McpServers> => {
    const settings = await store.call('settings:get', {});
    store.setSettings(settings);
    setConfigs(settings.mcpServers);
    if (!typed.current) setJson((open) => (open ? { text: asJson(settings.mcpServers) } : open));
    return settings.mcpServers;
  };
  useDisposables(
    (disposables) => {
      void store.attempt(async () => {
        setServers(await store.call('mcp:list', {}));
        await load();
      });
      disposables.add(subscription(store.api.on['mcp:changed']((payload) => setServers(payload.servers))));
    },
    [store],
  );

  /** Saves the whole object; the statuses, the settings and the JSON shown follow. Throws what main refused. */
  const configure = async (mcpServers: McpServers): Promise<void> => {
    setServers(await store.call('mcp:configure', { mcpServers }));
    typed.current = false;
    await load();
  };
  const saveServer = async (name: string, config: McpServerConfig): Promise<void> => {
    const current = await load();
    const kept = Object.fromEntries(Object.entries(current).filter(([other]) => other !== editing.name));
    // A switch set off stays off when the server is changed.
    const disabled = editing.name !== null && current[editing.name]?.disabled === true;
    await configure({ ...kept, [name]: { ...config, disabled } });
    setEditing({ name: null, key: editing.key + 1 });
  };
  const editingConfig = editing.name === null ? undefined : configs[editing.name];
  // The person's own servers; the folders' are listed after them, as their files have them.
  const yours = servers.filter((server) => !server.source);

  return (
    <SettingsSection
      id="mcp"
      description="Servers that give the agent more tools (named server__tool): a command the app starts (stdio), or a URL (streamable HTTP)."
    >
      <ul className="providers">
        {yours.map((server) => (
          <li key={server.name} className="card row" {...field(server.name, `${server.transport} ${server.state} MCP server`)}>
            <strong>{server.name}</strong>
            <span className={`badge mcp-${server.state}`}>{server.state}</span>
            <span className="muted small">
              {server.transport} · {counted(server.tools.length, 'tool')}
              {server.restarts > 0 ? ` · restarted ${server.restarts}×` : ''}
              {configs[server.name]?.trusted ? ' · read-only marks trusted' : ''}
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
            {configs[server.name] && (
              <button
                type="button"
                aria-label={`Edit ${server.name}`}
                onClick={() => setEditing({ name: server.name, key: editing.key + 1 })}
              >
                Edit
              </button>
            )}
            <button
              type="button"
              className="danger"
              aria-label={`Remove ${server.name}`}
              onClick={() => {
                if (!window.confirm(`Remove the MCP server “${server.name}” and its configuration?`)) return;
                void store.attempt(async () => {
                  const current = await load();
                  await configure(Object.fromEntries(Object.entries(current).filter(([other]) => other !== server.name)));
                });
              }}
            >
              Remove
            </button>
          </li>
        ))}
      </ul>
      <FolderServers servers={servers} />
      <div {...field('Add an MCP server', 'name, command, arguments, environment variables, working folder, URL, headers, edit as JSON')}>
        {json === null ? (
          <McpServerForm
            key={editing.key}
            initial={editing.name !== null && editingConfig ? draftOfServer(editing.name, editingConfig) : emptyMcpDraft}
            editing={editingConfig ? editing.name : null}
            taken={Object.keys(configs).filter((name) => name !== editing.name)}
            onSave={saveServer}
            onCancel={editing.name === null ? null : () => setEditing({ name: null, key: editing.key + 1 })}
          />
        ) : (
          <McpJsonEditor
            text={json.text}
            onText={(text) => {
              typed.current = true;
              setJson({ text });
            }}
            onSave={async (next) => {
              const { servers: kept, untrusted } = keepGrantedTrust(next, configs);
              await configure(kept);
              if (untrusted.length > 0)
                store.notify({
                  kind: 'info',
                  text: `Saved without trusting the marks of ${untrusted.join(', ')}: trust a server in its form (Edit).`,
                });
            }}
          />
        )}
        <button
          type="button"
          className="link small mcp-json-toggle"
          onClick={() => {
            typed.current = false;
            setJson(json === null ? { text: asJson(configs) } : null);
          }}
        >
          {json === null ? 'Edit as JSON' : 'Use the form'}
        </button>
      </div>
    </SettingsSection>
  );
}
