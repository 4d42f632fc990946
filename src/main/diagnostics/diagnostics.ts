/*
 * The checks after an edit: the changed files grouped by language, each language's server found (the workspace's own,
 * else one on the PATH), started once per workspace when the person allowed it, sandboxed where there is a sandbox, and
 * asked for the files' problems within the time limit. What goes wrong with a server is a note; the edit stands.
 */

import { accessSync, constants } from 'node:fs';
import { delimiter, extname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Diagnostic } from 'vscode-languageserver-protocol/node';
import {
  checkedLanguageNames,
  maxProblemsKept,
  type CheckedLanguage,
  type DiagnosticsSettings,
  type Problem,
  type ProblemReport,
  type ProblemSeverity,
} from '../../shared/diagnostics';
import { BoundedMap } from '../../shared/bounded-map';
import { CancelledError } from '../../shared/errors';
import type { DiagnosticsRequest, DiagnosticsSource } from '../agent/ports/diagnostics';
import type { WorkspaceFiles } from '../workspace/workspace-files';
import { samePath } from '../workspace/path-case';
import type { SandboxStatus } from '../tools/sandbox';
import { LanguageServer, LanguageServerError, type CheckedFile } from './language-server';
import { fallbackTsserver, serverLaunch, specs, type ServerSpec } from './server-launch';

/** The most changed files one check looks at. */
const maxChecked = 20;
/** The largest file sent to a server. */
const maxFileBytes = 1_000_000;
/** A server unused this long is stopped; the next edit starts it again. */
const defaultIdleMs = 10 * 60_000;
/** A server that failed this many times in a workspace is not started there again until the app starts again. */
const maxFailures = 3;
/** Servers kept running at once, over every workspace. */
const maxServers = 6;

export interface DiagnosticsOptions {
  readonly settings: () => DiagnosticsSettings;
  /** The workspace files of a folder: how changed files are read, following no link. */
  readonly filesOf: (workspacePath: string) => WorkspaceFiles;
  /** The OS sandbox servers run in; none when absent. */
  readonly sandbox?: SandboxStatus;
  /** The environment servers start with (their PATH is where they are looked for); the app's own by default. */
  readonly env?: NodeJS.ProcessEnv;
  /** How long an unused server keeps running. */
  readonly idleMs?: number;
  /**
   * Whether a folder runs restricted (the person does not trust it): its own programs never start, so a server is
   * looked for on the PATH only (not in its `node_modules/.bin`), and TypeScript's is the app's, not the folder's.
   */
  readonly restricted?: (workspacePath: string) => boolean;
  /** Whether the file system holding a folder ignores letter case; asked of the disk when absent. */
  readonly caseIgnored?: (workspacePath: string) => boolean;
}

/**
 * Whether the person allowed a language's server in one of `folders` (a workspace's real path and the path it was asked
 * by), by the file system's case rules: an allowance for `/Users/me/WS` holds for `/Users/me/ws` where case is ignored.
 */
export function allowedIn(
  allowed: DiagnosticsSettings['allowed'],
  language: string,
  folders: readonly string[],
  caseIgnored?: boolean,
): boolean {
  return allowed.some((item) => item.language === language && folders.some((folder) => samePath(item.workspacePath, folder, caseIgnored)));
}

const severities: Record<number, ProblemSeverity> = { 1: 'error', 2: 'warning', 3: 'information', 4: 'hint' };
const severityOrder: Record<ProblemSeverity, number> = { error: 0, warning: 1, information: 2, hint: 3 };

/** A server's diagnostic as a problem of a file; anything it sent of the wrong shape is read as the least it can mean. */
function problemOf(path: string, diagnostic: Diagnostic): Problem {
  const start = diagnostic.range?.start;
  // A place a server gives that is not a line of a file (negative, fractional, past any file's length) is read as the first.
  const place = (value: unknown): number =>
    Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) < 10_000_000 ? (value as number) + 1 : 1;
  const line = place(start?.line);
  const column = place(start?.character);
  const code = diagnostic.code;
  return {
    path,
    line,
    column,
    severity: severities[diagnostic.severity ?? 1] ?? 'error',
    message: String(diagnostic.message ?? '').slice(0, 2_000),
    ...(typeof diagnostic.source === 'string' ? { source: diagnostic.source.slice(0, 100) } : {}),
    ...(typeof code === 'string' || typeof code === 'number' ? { code: String(code).slice(0, 100) } : {}),
  };
}

interface RunningServer {
  readonly server: LanguageServer;
  idle: ReturnType<typeof setTimeout> | undefined;
}

/** The language servers of the workspaces in use, and the checks of edits through them. */
export class Diagnostics implements DiagnosticsSource {
  private readonly servers = new BoundedMap<string, RunningServer>({
    max: maxServers,
    refreshOnRead: true,
    onEvict: (_key, running) => this.stop(running),
  });
  /** Servers being started, so two checks at once start one. */
  private readonly starting = new Map<string, Promise<RunningServer>>();
  private readonly failures = new Map<string, number>();
  /** What was said once per workspace and language (a server not found), so it is not said at every edit. */
  private readonly told = new Set<string>();
  private disposed = false;
  private started = 0;

  constructor(private readonly options: DiagnosticsOptions) {}

  /** How many servers were started: one per workspace and language while each keeps running. */
  get serversStarted(): number {
    return this.started;
  }

  async check(request: DiagnosticsRequest): Promise<ProblemReport | null> {
    const settings = this.options.settings();
    const deadline = performance.now() + settings.timeLimitMs;
    const files = this.options.filesOf(request.workspacePath);
    const reader = files.reader();
    const root = reader.root;
    const groups = new Map<ServerSpec, string[]>();
    for (const path of request.paths.slice(0, maxChecked)) {
      const spec = specs.find((candidate) => candidate.extensions[extname(path).toLowerCase()] !== undefined);
      if (!spec || !settings.languages.includes(spec.language)) continue;
      groups.set(spec, [...(groups.get(spec) ?? []), path]);
    }
    if (groups.size === 0) {
      reader.close();
      return null;
    }
    const report = { checked: [] as string[], problems: [] as Problem[], notes: [] as string[], unallowed: [] as CheckedLanguage[] };
    try {
      await Promise.all(
        [...groups].map(async ([spec, paths]) => {
          const { language, server: serverName } = checkedLanguageNames[spec.language];
          const allowed = allowedIn(settings.allowed, spec.language, [root, request.workspacePath], this.options.caseIgnored?.(root));
          const restricted = this.options.restricted?.(root) === true;
          const program = this.find(spec, root, restricted);
          // A server started for the folder as trusted is not the one it gets restricted, nor the other way round.
          const key = `${root}\u0000${spec.language}${restricted ? '\u0000restricted' : ''}`;
          if (program === null) {
            if (!this.told.has(key)) {
              this.told.add(key);
              report.notes.push(
                `${language} files are not checked: ${serverName} (${spec.program}) was not found${spec.fromWorkspace && !restricted ? " in the workspace's node_modules/.bin or" : ''} on the PATH${spec.fromWorkspace && restricted ? " (the folder's own is not used: the folder is not trusted)" : ''}.`,
              );
            }
            return;
          }
          if (restricted && spec.language === 'typescript' && fallbackTsserver() === null) {
            if (!this.told.has(key)) {
              this.told.add(key);
              report.notes.push(
                `${language} files are not checked: this folder is not trusted, and the app has no TypeScript of its own to check them with (the folder's own is not run).`,
              );
            }
            return;
          }
          if (!allowed) {
            report.unallowed.push(spec.language);
            if (!this.told.has(`${key}\u0000allow`)) {
              this.told.add(`${key}\u0000allow`);
              report.notes.push(`${language} files are not checked until the person allows ${serverName} to run in this folder.`);
            }
            return;
          }
          if ((this.failures.get(key) ?? 0) >= maxFailures) return;
          const texts: CheckedFile[] = [];
          for (const path of paths) {
            // A file the change deleted is not there to check.
            const data = await reader.readFile(path, maxFileBytes + 1).catch(() => null);
            if (data === null) continue;
            if (data.length > maxFileBytes) {
              report.notes.push(`${path} is not checked: it is larger than ${maxFileBytes / 1_000_000} MB.`);
              continue;
            }
            texts.push({
              uri: pathToFileURL(join(root, path)).href,
              languageId: spec.extensions[extname(path).toLowerCase()] ?? '',
              text: data.toString('utf8'),
            });
          }
          if (texts.length === 0) return;
          try {
            const running = await this.serverFor(key, spec, program, root, deadline, request.signal, restricted);
            const published = await running.server.check(texts, deadline, request.signal);
            this.touch(key, running);
            for (const [uri, items] of published.diagnostics) {
              const path = relative(root, fileURLToPath(uri)).split(sep).join('/');
              report.checked.push(path);
              for (const item of items) report.problems.push(problemOf(path, item));
            }
            if (published.silent.length > 0 && !request.signal.aborted)
              report.notes.push(
                `${serverName} said nothing of ${published.silent.length === 1 ? 'one file' : `${published.silent.length} files`} within ${Math.round(settings.timeLimitMs / 1000)} s; ${published.silent.length === 1 ? 'it is' : 'they are'} not checked this time.`,
              );
          } catch (error) {
            // Stopped with the turn: no failure of the server's, and nothing to say.
            if (error instanceof CancelledError || request.signal.aborted) return;
            const failures = (this.failures.get(key) ?? 0) + 1;
            this.failures.set(key, failures);
            this.forget(key);
            const reason = error instanceof LanguageServerError ? error.message : error instanceof Error ? error.message : String(error);
            report.notes.push(
              `${language} checks failed: ${serverName} ${reason}. The change stands.${failures >= maxFailures ? ` It is not started again in this folder until the app restarts.` : ''}`,
            );
          }
        }),
      );
    } finally {
      reader.close();
    }
    const counts = new Map<string, { path: string; errors: number; warnings: number }>();
    for (const path of report.checked) counts.set(path, { path, errors: 0, warnings: 0 });
    for (const problem of report.problems) {
      const count = counts.get(problem.path);
      if (!count) continue;
      if (problem.severity === 'error') count.errors += 1;
      else if (problem.severity === 'warning') count.warnings += 1;
    }
    const all = report.problems.sort(
      (a, b) =>
        severityOrder[a.severity] - severityOrder[b.severity] ||
        (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) ||
        a.line - b.line ||
        a.column - b.column,
    );
    return {
      checked: [...counts.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
      problems: all.slice(0, maxProblemsKept),
      errors: all.filter((problem) => problem.severity === 'error').length,
      warnings: all.filter((problem) => problem.severity === 'warning').length,
      notes: report.notes.slice(0, 20).map((note) => (note.length > 1_000 ? `${note.slice(0, 999)}…` : note)),
      unallowed: [...new Set(report.unallowed)],
    };
  }

  /** The language servers this workspace has, whether each was found and whether it is allowed: for the person to decide. */
  available(workspacePath: string): Array<{ language: CheckedLanguage; program: string | null }> {
    const reader = this.options.filesOf(workspacePath).reader();
    const root = reader.root;
    reader.close();
    return specs.map((spec) => ({ language: spec.language, program: this.find(spec, root, this.options.restricted?.(root) === true) }));
  }

  /** How many servers run now. */
  get running(): number {
    return this.servers.size;
  }

  /** Stops the servers of every folder but these (the folders sessions work in); a folder that cannot be opened is let go. */
  keepOnly(workspacePaths: readonly string[]): void {
    const roots = new Set<string>();
    for (const path of new Set(workspacePaths)) {
      try {
        const reader = this.options.filesOf(path).reader();
        roots.add(reader.root);
        reader.close();
      } catch {
        // A folder that is gone keeps no server.
      }
    }
    for (const [key] of [...this.servers]) if (!roots.has(key.slice(0, key.indexOf('\u0000')))) this.forget(key);
  }

  /** Stops every server. */
  dispose(): void {
    this.disposed = true;
    for (const [, running] of this.servers) this.stop(running);
    this.servers.clear();
  }

  /** Where a language's server is: the workspace's own (unless it runs restricted), else the first on the PATH; null when there is none. */
  private find(spec: ServerSpec, root: string, restricted: boolean): string | null {
    const env = this.options.env ?? process.env;
    const folders = [
      ...(spec.fromWorkspace && !restricted ? [join(root, 'node_modules', '.bin')] : []),
      ...(env['PATH'] ?? '').split(delimiter).filter(Boolean),
    ];
    const names = process.platform === 'win32' ? [`${spec.program}.cmd`, `${spec.program}.exe`] : [spec.program];
    for (const folder of folders)
      for (const name of names) {
        const candidate = join(folder, name);
        try {
          accessSync(candidate, constants.X_OK);
          return candidate;
        } catch {
          // Not here: the next folder.
        }
      }
    return null;
  }

  private async serverFor(
    key: string,
    spec: ServerSpec,
    program: string,
    root: string,
    deadline: number,
    signal: AbortSignal,
    restricted: boolean,
  ): Promise<RunningServer> {
    const running = this.servers.get(key);
    if (running && running.server.failed === null) return running;
    if (running) this.forget(key);
    let starting = this.starting.get(key);
    if (!starting) {
      const own = fallbackTsserver() ?? undefined;
      // The TypeScript server prefers the folder's own TypeScript to its fallback; in a folder not trusted it is told the app's.
      const initializationOptions =
        spec.language === 'typescript'
          ? { tsserver: restricted && own ? { path: own, fallbackPath: own } : { fallbackPath: own } }
          : // rust-analyzer builds a crate's build scripts and proc macros (its own code) unless told not to.
            spec.language === 'rust' && restricted
            ? { cargo: { buildScripts: { enable: false } }, procMacro: { enable: false } }
            : {};
      this.started += 1;
      starting = LanguageServer.start(
        serverLaunch({
          program,
          args: spec.args,
          root,
          ...(this.options.sandbox ? { sandbox: this.options.sandbox } : {}),
          env: this.options.env ?? process.env,
        }),
        root,
        initializationOptions,
        deadline,
        signal,
      )
        .then((server) => {
          const made: RunningServer = { server, idle: undefined };
          if (this.disposed) server.dispose();
          else this.servers.set(key, made);
          return made;
        })
        .finally(() => this.starting.delete(key));
      this.starting.set(key, starting);
    }
    return starting;
  }

  private touch(key: string, running: RunningServer): void {
    clearTimeout(running.idle);
    running.idle = setTimeout(() => this.forget(key), this.options.idleMs ?? defaultIdleMs);
    running.idle.unref();
  }

  private forget(key: string): void {
    const running = this.servers.get(key);
    if (!running) return;
    this.servers.delete(key);
    this.stop(running);
  }

  private stop(running: RunningServer): void {
    clearTimeout(running.idle);
    running.server.dispose();
  }
}
