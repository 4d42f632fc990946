/*
 * The app's error codes and error classes, and errors as data that cross IPC, go into the journal and reach the UI.
 */

import { z } from 'zod';

/**
 * Every error code the app can report across a boundary. A closed set, so the renderer can
 * switch on it and a new code is a deliberate change.
 */
export const errorCodeSchema = z.enum([
  'invalid_input',
  'unknown_channel',
  'forbidden_sender',
  'not_found',
  'session_busy',
  'no_workspace',
  /** A path the window named that the person never chose in the app (a dialog, a drop, a recent folder, a launch). */
  'path_not_chosen',
  'no_model',
  'store_unavailable',
  'store_newer_version',
  'store_corrupt',
  /** The database is encrypted and this system has no key for it (no keychain, or the kept key is gone). */
  'store_key_missing',
  /** The database is encrypted and the key this system keeps does not open it. */
  'store_key_wrong',
  /** Another running process has the database open, or alone (putting a backup back, converting it): named in the message. */
  'store_in_use',
  'secret_storage_unavailable',
  'model_connection_failed',
  'model_rate_limited',
  'model_server_error',
  'model_bad_response',
  'model_stream_interrupted',
  'model_timeout',
  'model_auth_failed',
  'model_request_rejected',
  /** The request did not fit the model's context window. */
  'model_context_overflow',
  /** A model file that is not a GGUF the built-in runtime can load: truncated, another format, an unknown architecture. */
  'model_file_invalid',
  /** The model needs more memory than this computer has. */
  'model_too_large',
  /** The built-in runtime's process failed to start or stopped. */
  'runtime_failed',
  /** A model download failed: the network, the server, or what it sent. */
  'download_failed',
  /** The disk has no room for what was to be written. */
  'disk_full',
  /** Git is not on this computer, or is older than the app can use. */
  'git_unavailable',
  /** A git command failed: a locked index, a hook that refused a commit, a conflict, a name git cannot use. */
  'git_failed',
  'cancelled',
  'iteration_limit',
  'path_refused',
  'already_answered',
  'invalid_state',
  'internal',
]);
export type ErrorCode = z.infer<typeof errorCodeSchema>;

/** The error as data: what crosses IPC, what the journal stores, what the UI shows. */
export const errorInfoSchema = z.object({
  code: errorCodeSchema,
  /** What happened and what to do, in plain words: what the person reads. */
  message: z.string(),
  retryable: z.boolean().optional(),
  /**
   * What the system itself said (an error code such as `UND_ERR_SOCKET`, a library's message, the field path a check
   * refused), for whoever wants it: shown apart from the message, never in its place.
   */
  detail: z.string().max(4000).optional(),
});
export type ErrorInfo = z.infer<typeof errorInfoSchema>;

/** Base of the app's error hierarchy; subclasses name the cause. */
export class WorkbenchError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  /** What the system said, kept apart from the message (see `ErrorInfo.detail`). */
  readonly detail: string | undefined;

  constructor(code: ErrorCode, message: string, options?: { retryable?: boolean; cause?: unknown; detail?: string }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retryable = options?.retryable ?? false;
    this.detail = options?.detail;
  }

  toInfo(): ErrorInfo {
    return {
      code: this.code,
      message: this.message,
      ...(this.retryable ? { retryable: true } : {}),
      ...(this.detail === undefined ? {} : { detail: this.detail.slice(0, 4000) }),
    };
  }
}

export class InvalidInputError extends WorkbenchError {
  constructor(message: string) {
    super('invalid_input', message);
  }
}

export class NotFoundError extends WorkbenchError {
  constructor(what: string, id: string) {
    super('not_found', `${what} ${JSON.stringify(id)} does not exist.`);
  }
}

export class ModelError extends WorkbenchError {}

export class StoreError extends WorkbenchError {
  /** A backup of the database the person may put back, when one is kept beside it. */
  readonly backupPath: string | undefined;

  constructor(code: ErrorCode, message: string, options?: { retryable?: boolean; cause?: unknown; detail?: string; backupPath?: string }) {
    super(code, message, options);
    this.backupPath = options?.backupPath;
  }
}

export class CancelledError extends WorkbenchError {
  constructor(message = 'Stopped by the user.') {
    super('cancelled', message);
  }
}

/** For states that cannot happen; reaching one is a defect in the app. */
export class BugError extends WorkbenchError {
  constructor(message: string) {
    super('internal', message);
  }
}

/** Turns anything thrown into error data without leaking stack traces or secrets. */
export function toErrorInfo(error: unknown): ErrorInfo {
  if (error instanceof WorkbenchError) return error.toInfo();
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'internal', message };
}
