/*
 * One language server, spoken to over its standard input and output: started and initialized for a workspace root,
 * told of the files an edit changed, and asked (by waiting for what it publishes) for their problems.
 */

import { CancelledError } from '../../shared/errors';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  createProtocolConnection,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  PublishDiagnosticsNotification,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  type Diagnostic,
  type ProtocolConnection,
} from 'vscode-languageserver-protocol/node';

/** How a server is started: its program and arguments (already put in the sandbox, where there is one). */
export interface ServerLaunch {
  readonly program: string;
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  /**
   * Whether the server can see the app's process: it is told the app's process id so it exits when the app does. In a
   * sandbox with its own process ids it cannot (it would take the app for gone and exit); the sandbox ends it instead.
   */
  readonly seesApp: boolean;
}

/** A file to check: its URI, the language id the server knows it by, and its text now. */
export interface CheckedFile {
  readonly uri: string;
  readonly languageId: string;
  readonly text: string;
}

/** What a server published for the files asked about, and those it said nothing of in time. */
export interface PublishedProblems {
  readonly diagnostics: ReadonlyMap<string, readonly Diagnostic[]>;
  readonly silent: readonly string[];
}

/** The file a URI names, as a path (any spelling of it gives the same key); the URI itself when it names no file. */
function fileKey(uri: string): string {
  try {
    return fileURLToPath(uri);
  } catch {
    return uri;
  }
}

/** A server that could not be started, stopped, or sent what is not the protocol: said to the person as it is. */
export class LanguageServerError extends Error {}

/** How long a check waits for a server to clear the files the check before closed. */
const closeEchoMs = 300;
/** After a file's first problems arrive, how long more may come (a server may publish syntax first, then types). */
const settleMs = 300;
/** What is kept of a server's error output, for the note when it fails. */
const stderrKept = 2_000;

/**
 * A running language server. A server that exits, or sends what cannot be read as the protocol, is failed for good:
 * every check after says so, and the owner starts another.
 */
export class LanguageServer {
  /** The version each file was last opened at: every check opens it again at the next. */
  private readonly documents = new Map<string, number>();
  /** Files closed after a check whose clearing the server has not sent yet. */
  private readonly closing = new Set<string>();
  private readonly published = new Map<string, { readonly at: number; readonly items: readonly Diagnostic[] }>();
  private readonly listeners = new Set<() => void>();
  private failure: string | null = null;
  private stderr = '';

  private constructor(
    private readonly child: ChildProcess,
    private readonly connection: ProtocolConnection,
  ) {
    connection.onNotification(PublishDiagnosticsNotification.type, (params) => {
      // By the file it names: servers write their URIs each their own way (`%2B` for `+`, `c%3A` for `C:`).
      const key = fileKey(params.uri);
      // A server clears a closed file's problems: that answers the close, not the next check.
      if (this.closing.delete(key)) {
        this.changed();
        return;
      }
      this.published.set(key, {
        at: performance.now(),
        items: Array.isArray(params.diagnostics) ? params.diagnostics : [],
      });
      this.changed();
    });
    // What a server asks of its client: its settings (empty ones: its defaults; typescript-language-server stops on a
    // null where it asks for its formatting options), and registrations and progress (accepted).
    connection.onRequest('workspace/configuration', (params: { items?: unknown[] }) => (params.items ?? []).map(() => ({})));
    connection.onRequest('client/registerCapability', () => null);
    connection.onRequest('client/unregisterCapability', () => null);
    connection.onRequest('window/workDoneProgress/create', () => null);
    connection.onRequest('workspace/workspaceFolders', () => null);
    connection.onError(([error]) => this.fail(`it sent what is not the language server protocol (${error.message})`));
    connection.onClose(() => this.fail('its connection closed'));
    child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr = `${this.stderr}${chunk.toString('utf8')}`.slice(-stderrKept);
    });
    child.on('exit', (code, signal) => this.fail(signal ? `it was stopped (${signal})` : `it exited with code ${code ?? 0}`));
    child.on('error', (error) => this.fail(error.message));
  }

  /**
   * Starts a server and initializes it for `root`. Throws `LanguageServerError` when it cannot be started, fails, or
   * does not answer by `deadline` (a time from `performance.now()`).
   */
  static async start(
    launch: ServerLaunch,
    root: string,
    initializationOptions: unknown,
    deadline: number,
    signal?: AbortSignal,
  ): Promise<LanguageServer> {
    const child = spawn(launch.program, [...launch.args], { cwd: launch.cwd, env: launch.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const stdout = child.stdout;
    const stdin = child.stdin;
    if (!stdout || !stdin) throw new LanguageServerError('it has no standard input and output');
    // A write to a server that has gone is its exit, said by the exit handler; not an error of the app's.
    stdin.on('error', () => undefined);
    const connection = createProtocolConnection(new StreamMessageReader(stdout), new StreamMessageWriter(stdin));
    const server = new LanguageServer(child, connection);
    connection.listen();
    const rootUri = pathToFileURL(root).href;
    try {
      await server.within(
        connection.sendRequest(InitializeRequest.type, {
          processId: launch.seesApp ? process.pid : null,
          rootUri,
          workspaceFolders: [{ uri: rootUri, name: 'workspace' }],
          initializationOptions,
          capabilities: {
            textDocument: {
              synchronization: { didSave: false, dynamicRegistration: false },
              publishDiagnostics: { relatedInformation: false, versionSupport: true },
            },
            workspace: { configuration: true, workspaceFolders: true },
          },
        }),
        deadline,
        'to start',
        signal,
      );
      await connection.sendNotification(InitializedNotification.type, {});
    } catch (error) {
      server.dispose();
      throw error;
    }
    return server;
  }

  /** Why the server can no longer be used, or null while it runs. */
  get failed(): string | null {
    return this.failure;
  }

  /**
   * Tells the server the files as they are now (opened the first time, changed whole after) and waits for the problems
   * it publishes for each: until every file has some and none came for a moment, or until `deadline`. A file it said
   * nothing of by then is `silent`.
   */
  async check(files: readonly CheckedFile[], deadline: number, signal: AbortSignal): Promise<PublishedProblems> {
    this.throwIfFailed();
    // A file closed by the check before is opened again once the server has cleared it (at most a moment's wait).
    await this.until(
      () => files.every((file) => !this.closing.has(fileKey(file.uri))),
      Math.min(deadline, performance.now() + closeEchoMs),
      signal,
    );
    for (const file of files) this.closing.delete(fileKey(file.uri));
    const sentAt = performance.now();
    // Each file is opened for the check and closed after it: a server publishes a file's problems when it is opened
    // (it need not again for an edit that leaves it as clean as it was), and a closed file is read from disk, so what
    // the person or a command changes meanwhile is what the next check sees.
    for (const file of files) {
      const version = (this.documents.get(file.uri) ?? 0) + 1;
      this.documents.set(file.uri, version);
      await this.connection.sendNotification(DidOpenTextDocumentNotification.type, {
        textDocument: { uri: file.uri, languageId: file.languageId, version, text: file.text },
      });
    }
    const fresh = (uri: string): boolean => (this.published.get(fileKey(uri))?.at ?? -1) >= sentAt;
    const latest = (): number => Math.max(...files.map((file) => this.published.get(fileKey(file.uri))?.at ?? 0));
    await new Promise<void>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = (): void => {
        clearTimeout(timer);
        this.listeners.delete(look);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const look = (): void => {
        clearTimeout(timer);
        const now = performance.now();
        if (this.failure !== null || signal.aborted || now >= deadline) return done();
        if (!files.every((file) => fresh(file.uri))) {
          timer = setTimeout(look, deadline - now);
          return;
        }
        const quietFor = now - latest();
        if (quietFor >= settleMs) return done();
        timer = setTimeout(look, Math.min(settleMs - quietFor, deadline - now));
      };
      this.listeners.add(look);
      signal.addEventListener('abort', done, { once: true });
      look();
    });
    this.throwIfFailed();
    const diagnostics = new Map<string, readonly Diagnostic[]>();
    const silent: string[] = [];
    for (const file of files) {
      if (fresh(file.uri)) diagnostics.set(file.uri, this.published.get(fileKey(file.uri))?.items ?? []);
      else silent.push(file.uri);
      this.published.delete(fileKey(file.uri));
      this.closing.add(fileKey(file.uri));
      await this.connection
        .sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri: file.uri } })
        .catch(() => undefined);
    }
    return { diagnostics, silent };
  }

  /** Asks the server to shut down and exit, and kills it if it has not within a second. */
  dispose(): void {
    const { child, connection } = this;
    if (this.failure === null) {
      this.failure = 'it was stopped';
      void connection
        .sendRequest(ShutdownRequest.type)
        .then(() => connection.sendNotification(ExitNotification.type))
        .catch(() => undefined);
    }
    const kill = setTimeout(() => child.kill('SIGKILL'), 1_000);
    kill.unref();
    child.once('exit', () => {
      clearTimeout(kill);
      connection.dispose();
    });
    if (child.exitCode !== null || child.signalCode !== null) {
      clearTimeout(kill);
      connection.dispose();
    }
  }

  /** Waits until `ready` holds, `deadline` passes, the server fails or `signal` stops it. */
  private until(ready: () => boolean, deadline: number, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.listeners.delete(look);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const look = (): void => {
        if (ready() || this.failure !== null || signal.aborted || performance.now() >= deadline) done();
      };
      const timer = setTimeout(done, Math.max(0, deadline - performance.now()));
      this.listeners.add(look);
      signal.addEventListener('abort', done, { once: true });
      look();
    });
  }

  private changed(): void {
    for (const listener of [...this.listeners]) listener();
  }

  private fail(reason: string): void {
    if (this.failure !== null) return;
    const said = this.stderr.trim().split('\n').slice(-3).join(' ').trim().slice(-300);
    this.failure = said === '' ? reason : `${reason}: ${said}`;
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    this.changed();
  }

  private throwIfFailed(): void {
    if (this.failure !== null) throw new LanguageServerError(this.failure);
  }

  /** Waits for `promise` until `deadline`, or until the server fails. */
  private async within<T>(promise: Promise<T>, deadline: number, what: string, signal?: AbortSignal): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let listener: (() => void) | undefined;
    let stop: (() => void) | undefined;
    const seconds = Math.max(1, Math.round((deadline - performance.now()) / 1000));
    try {
      return await Promise.race([
        promise,
        new Promise<never>((_resolve, reject) => {
          timer = setTimeout(
            () => reject(new LanguageServerError(`it did not answer ${what} within ${seconds} s`)),
            Math.max(0, deadline - performance.now()),
          );
          listener = () => {
            if (this.failure !== null) reject(new LanguageServerError(this.failure));
          };
          this.listeners.add(listener);
          listener();
          // Stop ends the wait at once: a server that starts slowly never holds a stopped turn.
          stop = () => reject(new CancelledError());
          if (signal?.aborted) stop();
          else signal?.addEventListener('abort', stop, { once: true });
        }),
      ]);
    } finally {
      clearTimeout(timer);
      if (listener) this.listeners.delete(listener);
      if (stop) signal?.removeEventListener('abort', stop);
    }
  }
}
