/*
 * The form that adds an MCP server, or changes one: its name, then a command with its arguments, environment variables
 * and folder (stdio), or a URL with its headers (streamable HTTP), each field checked as it is typed once a save was
 * tried.
 */

import { useState } from 'react';
import type { McpServerConfig } from '../../../shared/domain';
import { errorMessage } from '../client';
import { FieldProblem, KeyValueRows, problemAttributes, ValueRows } from './DraftRows';
import { readMcpDraft, type McpDraft } from './mcp-draft';

/**
 * Adds a server (`editing` null) or changes the one named `editing`. `taken` are the names of the other servers.
 * `onSave` saves the server read from the form (replacing `editing`, renamed or not); what it throws is shown.
 */
export function McpServerForm({
  initial,
  editing,
  taken,
  onSave,
  onCancel,
}: {
  initial: McpDraft;
  editing: string | null;
  taken: readonly string[];
  onSave: (name: string, config: McpServerConfig) => Promise<void>;
  onCancel: (() => void) | null;
}) {
  const [draft, setDraft] = useState<McpDraft>(initial);
  /** A save was tried: from then on each field says what is wrong with it as it is typed. */
  const [tried, setTried] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const reading = readMcpDraft(draft, taken);
  const problems = tried && !reading.ok ? reading.problems : {};
  const change = (next: Partial<McpDraft>): void => {
    // Another command or address is another server: trust in the old one's marks does not pass to it.
    const relaunched = ['transport', 'command', 'args', 'env', 'cwd', 'url', 'headers'].some((field) => field in next);
    setDraft({ ...draft, ...next, ...(relaunched && next.trusted === undefined ? { trusted: false } : {}) });
    setFailure(null);
  };
  const title = editing ? `Edit ${editing}` : 'Add an MCP server';

  return (
    <form
      className="card form mcp-form"
      aria-label={title}
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        setTried(true);
        if (!reading.ok) return;
        setSaving(true);
        onSave(reading.name, reading.config).then(
          () => setSaving(false),
          (caught: unknown) => {
            setSaving(false);
            setFailure(errorMessage(caught));
          },
        );
      }}
    >
      <h4>{title}</h4>
      <label>
        Name
        <input
          value={draft.name}
          maxLength={40}
          placeholder="filesystem"
          spellCheck={false}
          {...problemAttributes('mcp-name-problem', problems['name'])}
          onChange={(event) => change({ name: event.target.value })}
        />
      </label>
      <FieldProblem id="mcp-name-problem" problem={problems['name']} />
      <fieldset className="row mcp-transport">
        <legend>Transport</legend>
        <label className="row small">
          <input type="radio" name="mcp-transport" checked={draft.transport === 'stdio'} onChange={() => change({ transport: 'stdio' })} />A
          command it starts (stdio)
        </label>
        <label className="row small">
          <input type="radio" name="mcp-transport" checked={draft.transport === 'http'} onChange={() => change({ transport: 'http' })} />A
          URL (streamable HTTP)
        </label>
      </fieldset>
      {draft.transport === 'stdio' ? (
        <CommandFields draft={draft} problems={problems} change={change} />
      ) : (
        <UrlFields draft={draft} problems={problems} change={change} />
      )}
      <label className="row small">
        <input type="checkbox" checked={draft.trusted} onChange={(event) => change({ trusted: event.target.checked })} />
        Trust this server’s read-only marks
      </label>
      <p className="muted small">
        A tool the server marks read-only then runs without asking from L1 on. Otherwise it counts as a low-risk write: the mark is the
        server’s own word.
      </p>
      <div className="row">
        <button type="submit" className="primary" disabled={saving}>
          {editing ? 'Save server' : 'Add server'}
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
        {tried && !reading.ok && (
          <span className="error small" role="alert">
            {problems['form'] ?? 'Not saved: see the fields marked.'}
          </span>
        )}
        {failure && (
          <span className="error small" role="alert">
            {failure}
          </span>
        )}
      </div>
    </form>
  );
}

/** A stdio server's fields: the command, its arguments and environment, and the folder it starts in. */
function CommandFields({
  draft,
  problems,
  change,
}: {
  draft: McpDraft;
  problems: Readonly<Record<string, string>>;
  change: (next: Partial<McpDraft>) => void;
}) {
  return (
    <>
      <label>
        Command
        <input
          value={draft.command}
          maxLength={1000}
          placeholder="npx"
          spellCheck={false}
          {...problemAttributes('mcp-command-problem', problems['command'])}
          onChange={(event) => change({ command: event.target.value })}
        />
      </label>
      <FieldProblem id="mcp-command-problem" problem={problems['command']} />
      <ValueRows
        idPrefix="args"
        legend="Arguments"
        label="Argument"
        addLabel="Add an argument"
        values={draft.args}
        problems={problems}
        onChange={(args) => change({ args })}
      />
      <KeyValueRows
        idPrefix="env"
        legend="Environment variables"
        noun="variable"
        rows={draft.env}
        problems={problems}
        onChange={(env) => change({ env })}
      />
      <label>
        Working folder
        <input
          value={draft.cwd}
          maxLength={4096}
          placeholder="optional"
          spellCheck={false}
          onChange={(event) => change({ cwd: event.target.value })}
        />
      </label>
    </>
  );
}

/** An HTTP server's fields: its URL and headers. */
function UrlFields({
  draft,
  problems,
  change,
}: {
  draft: McpDraft;
  problems: Readonly<Record<string, string>>;
  change: (next: Partial<McpDraft>) => void;
}) {
  return (
    <>
      <label>
        URL
        <input
          type="url"
          value={draft.url}
          placeholder="https://example.com/mcp"
          spellCheck={false}
          {...problemAttributes('mcp-url-problem', problems['url'])}
          onChange={(event) => change({ url: event.target.value })}
        />
      </label>
      <FieldProblem id="mcp-url-problem" problem={problems['url']} />
      <KeyValueRows
        idPrefix="headers"
        legend="Headers"
        noun="header"
        rows={draft.headers}
        problems={problems}
        onChange={(headers) => change({ headers })}
      />
    </>
  );
}
