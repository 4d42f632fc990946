/*
 * The IPC router: checks each request's sender, parses its input with the contract's schema, runs its handler, and
 * answers data, an error included.
 *
 * Also the transport's interface and the typed sender of events; a refused input is answered in plain words.
 */

import {
  channels,
  channelNames,
  type ChannelName,
  type ChannelOutput,
  type EventName,
  type EventPayload,
  type IpcResult,
  type ParsedInput,
} from '../../shared/ipc/contract';
import { toErrorInfo, type ErrorInfo } from '../../shared/errors';
import { DisposableStore, type Disposable } from '../../shared/lifecycle';

/** Who sent a request, as the transport can tell. */
export interface SenderInfo {
  /** URL of the sending frame (Electron) or the origin of the connection (test host). */
  readonly url: string;
  readonly isMainFrame: boolean;
}

export type { Disposable } from '../../shared/lifecycle';

/** Carries requests in and events out: Electron's ipcMain in the app, a WebSocket in the test host. */
export interface IpcTransport {
  handle(channel: ChannelName, handler: (sender: SenderInfo, payload: unknown) => Promise<IpcResult<unknown>>): Disposable;
  send(event: EventName, payload: unknown): void;
}

export type Handlers = { readonly [K in ChannelName]: (input: ParsedInput<K>) => Promise<ChannelOutput<K>> | ChannelOutput<K> };

export interface RouterOptions {
  readonly isTrustedSender: (sender: SenderInfo) => boolean;
  /** Checks outputs against the contract too; on in tests to catch a handler drifting from it. */
  readonly validateOutputs?: boolean;
  readonly onError?: (channel: ChannelName, error: ErrorInfo) => void;
}

/** What people call the fields they type into; any other field is named by its path. */
const fieldLabels: Readonly<Record<string, string>> = {
  baseUrl: 'address',
  apiKey: 'API key',
  name: 'name',
  model: 'model name',
  path: 'folder',
  text: 'message',
  message: 'commit message',
  title: 'title',
};

interface Issue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
  readonly code?: string;
  readonly origin?: string;
  readonly minimum?: unknown;
  readonly maximum?: unknown;
}

/**
 * What is wrong with a field, as a sentence's predicate after its name ("is empty", "must start with http://…"); null
 * when the schema says it in its own technical terms, which are kept for the detail instead.
 */
function issueWords(issue: Issue): string | null {
  if (issue.origin === 'string' && issue.code === 'too_small')
    return issue.minimum === 1 ? 'is empty' : `needs at least ${String(issue.minimum)} characters`;
  if (issue.origin === 'string' && issue.code === 'too_big') return `is too long (at most ${String(issue.maximum)} characters)`;
  if (issue.origin === 'number' && issue.code === 'too_small') return `must be at least ${String(issue.minimum)}`;
  if (issue.origin === 'number' && issue.code === 'too_big') return `must be at most ${String(issue.maximum)}`;
  if (issue.code === 'invalid_type') return 'is missing or of the wrong kind';
  // The schema's own words for a field start "it …" ("it must start with http://"): said of the field by name.
  if (/^it /.test(issue.message)) return issue.message.slice(3);
  return null;
}

/** A size limit the schema words itself ("A memory cannot be empty."): said as it is, whatever the field. */
const ownWords = (issue: Issue): boolean =>
  (issue.code === 'too_small' || issue.code === 'too_big') && !/^Too (small|big)\b/.test(issue.message);

/** One issue as a sentence naming the field as the form does: "The address must start with http:// or https://…". */
function issueSentence(issue: Issue): string {
  if (ownWords(issue)) return issue.message;
  const last = issue.path.at(-1);
  const label = typeof last === 'string' ? (fieldLabels[last] ?? null) : null;
  const words = issueWords(issue);
  const subject = label === null ? 'A value of the request' : `The ${label}`;
  return `${subject} ${words ?? 'is not valid'}.`.replace(/\.\.$/, '.');
}

/**
 * What was refused: in words, each field by the name the form gives it (at most three), and as the detail what the
 * schema said of each path.
 */
function refusal(issues: readonly Issue[]): { message: string; detail: string } {
  const shown = issues.slice(0, 3);
  const message = [...new Set(shown.map(issueSentence))].join(' ');
  const detail = shown.map((issue) => `${issue.path.map(String).join('.') || '(input)'}: ${issue.message}`).join('; ');
  return { message, detail };
}

/**
 * Handles one request: checks the sender, parses the input with the contract's schema, runs the
 * handler, and answers data in every case. A handler never sees unparsed input.
 */
export async function dispatch<K extends ChannelName>(
  channel: K,
  handler: Handlers[K],
  sender: SenderInfo,
  payload: unknown,
  options: RouterOptions,
): Promise<IpcResult<ChannelOutput<K>>> {
  if (!options.isTrustedSender(sender)) {
    return { ok: false, error: { code: 'forbidden_sender', message: `Requests from ${sender.url} are not accepted.` } };
  }
  const parsed = channels[channel].input.safeParse(payload);
  if (!parsed.success) {
    return {
      ok: false,
      error: { code: 'invalid_input', ...refusal(parsed.error.issues) },
    };
  }
  try {
    const value = await (handler as (input: unknown) => unknown)(parsed.data);
    if (options.validateOutputs) channels[channel].output.parse(value);
    return { ok: true, value: value as ChannelOutput<K> };
  } catch (error) {
    const info = toErrorInfo(error);
    options.onError?.(channel, info);
    return { ok: false, error: info };
  }
}

/** Registers a handler for every channel of the contract; the build fails if one is missing. */
export function registerHandlers(transport: IpcTransport, handlers: Handlers, options: RouterOptions): Disposable {
  const registrations = new DisposableStore();
  for (const channel of channelNames) {
    const handler = handlers[channel] as Handlers[typeof channel];
    registrations.add(transport.handle(channel, (sender, payload) => dispatch(channel, handler, sender, payload, options)));
  }
  return registrations;
}

/** Sends typed events through a transport. */
export class EventSender {
  constructor(private readonly transport: IpcTransport) {}

  send<K extends EventName>(event: K, payload: EventPayload<K>): void {
    this.transport.send(event, payload);
  }
}
