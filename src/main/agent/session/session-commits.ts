/*
 * Commits from Changes: a message drafted by the session's model from the agent's diff, and a commit of the agent's
 * files alone (the whole session's, or one turn's), journalled so History shows it.
 */

import type { ChangeSet, FileDiff } from '../../../shared/changes';
import { WorkbenchError, NotFoundError } from '../../../shared/errors';
import type { GitCommit } from '../../../shared/git';
import type { GitCommitter } from '../ports/git';
import type { ModelChoice } from '../../../shared/domain';
import type { ProviderResolver } from '../ports/ports';
import type { SessionStore } from '../ports/stores';
import type { SessionJournal } from '../history/session-journal';

export interface SessionCommitsOptions {
  readonly store: SessionStore;
  readonly journal: SessionJournal;
  readonly git: GitCommitter;
  readonly providers: ProviderResolver;
  /** The session's (or a turn's) changes, as Changes lists them. */
  readonly changes: (sessionId: string, turnId: string | null) => Promise<ChangeSet>;
  readonly diff: (sessionId: string, turnId: string | null, path: string) => Promise<FileDiff>;
  /** Throws `session_busy` while a turn runs or files are being restored. */
  readonly assertIdle: (sessionId: string) => void;
}

/** A drafted commit: the message, the files it would commit, and those the person changed too since the agent. */
export interface CommitDraft {
  readonly message: string;
  readonly paths: readonly string[];
  readonly changedSince: readonly string[];
}

/** The most of the diff the model reads for a draft: a message is written from the gist, not from every line. */
const draftDiffChars = 24_000;
/** Room for the drafted message. */
const draftTokens = 400;

const draftInstruction =
  'Write a git commit message for the changes below. First line: a summary in the imperative mood, at most 72 ' +
  'characters, no trailing period. Then, if the change needs it, a blank line and a few lines (wrapped at 72) on what ' +
  'changed and why. Answer with the message alone: no quotes, no code fences, no preamble.';

/** The paths of a change set that a commit takes: files the agent changed and that are not wholly taken back. */
export function committablePaths(changes: ChangeSet): { paths: string[]; changedSince: string[] } {
  const files = changes.files.filter((file) => file.kind === 'file' && file.reverted !== 'whole');
  return { paths: files.map((file) => file.path), changedSince: files.filter((file) => file.changedSince).map((file) => file.path) };
}

/** A model's answer made into a message: fences and quotes a model may add are taken off. */
export function cleanDraft(text: string): string {
  let message = text.trim();
  const fenced = /^```[a-z]*\n([\s\S]*?)\n```$/.exec(message);
  if (fenced?.[1] !== undefined) message = fenced[1].trim();
  if (/^(["'`]).*\1$/s.test(message)) message = message.slice(1, -1).trim();
  return message.replace(/^(commit message|message):\s*/i, '');
}

/** Drafts and makes commits of a session's changes. */
export class SessionCommits {
  constructor(private readonly options: SessionCommitsOptions) {}

  /** A message for the session's (or a turn's) changes, written by the session's model from their diff. */
  async draft(sessionId: string, turnId: string | null, signal: AbortSignal): Promise<CommitDraft> {
    const { choice } = this.sessionOf(sessionId);
    const { paths, changedSince } = committablePaths(await this.options.changes(sessionId, turnId));
    if (paths.length === 0) throw new WorkbenchError('invalid_state', 'There are no changes of the agent to commit.');
    if (!choice) throw new WorkbenchError('no_model', 'Choose a model for this session to draft a message, or write one.');
    const diff = await this.diffText(sessionId, turnId, paths);
    const provider = this.options.providers.resolve(choice);
    let text = '';
    for await (const event of provider.stream(
      {
        model: choice.model,
        system: 'You write clear, accurate git commit messages.',
        messages: [{ role: 'user', content: `${draftInstruction}\n\n${diff}` }],
        maxTokens: draftTokens,
        // A side line: the conversation's cached prompt is not pushed out by the draft.
        cacheKey: `${sessionId}:commit`,
      },
      signal,
    )) {
      if (event.type === 'text_delta') text += event.text;
      else if (event.type === 'error')
        throw new WorkbenchError(event.error.code, `The model could not draft a message: ${event.error.message}`);
    }
    const message = cleanDraft(text);
    if (message === '') throw new WorkbenchError('model_bad_response', 'The model answered with no message; write one.');
    return { message, paths, changedSince };
  }

  /**
   * Commits the agent's files of the session (or of one turn) with this message, and nothing else; the journal's
   * `git_committed` puts it in History.
   */
  async commit(sessionId: string, turnId: string | null, message: string, signal?: AbortSignal): Promise<GitCommit> {
    this.options.assertIdle(sessionId);
    const { workspacePath } = this.sessionOf(sessionId);
    const { paths } = committablePaths(await this.options.changes(sessionId, turnId));
    if (paths.length === 0) throw new WorkbenchError('invalid_state', 'There are no changes of the agent to commit.');
    const commit = await this.options.git.commit(workspacePath, paths, message, signal);
    this.options.journal.append(sessionId, [{ type: 'git_committed', turnId, commit }]);
    return commit;
  }

  private sessionOf(sessionId: string): { workspacePath: string; choice: ModelChoice | null } {
    const session = this.options.store.get(sessionId);
    if (!session) throw new NotFoundError('Session', sessionId);
    if (!session.workspacePath) throw new WorkbenchError('no_workspace', 'This session has no folder.');
    const choice = session.model && session.model.model !== '' ? session.model : this.options.providers.defaultModel();
    return { workspacePath: session.workspacePath, choice };
  }

  /** The agent's diff of these paths, file by file, cut at the draft's share. */
  private async diffText(sessionId: string, turnId: string | null, paths: readonly string[]): Promise<string> {
    const parts: string[] = [];
    let size = 0;
    for (const path of paths) {
      if (size >= draftDiffChars) {
        parts.push(`[${paths.length - parts.length} more files changed]`);
        break;
      }
      const diff = await this.options.diff(sessionId, turnId, path);
      const change = diff.file.change === 'create' ? 'new file' : diff.file.change === 'delete' ? 'deleted' : 'changed';
      const body = diff.hunks.map((hunk) => [hunk.header, ...hunk.lines].join('\n')).join('\n');
      const text = `--- ${path} (${change})\n${body || diff.note || ''}`;
      parts.push(text.slice(0, draftDiffChars - size));
      size += text.length;
    }
    return parts.join('\n\n');
  }
}
