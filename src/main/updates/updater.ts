/*
 * The updater port the update service drives (electron-updater's `autoUpdater` in the app, a feed reader in the test
 * host), and how a failure that only means "the feed could not be reached" is told from others.
 */

/** How the updater is set up: where the feed is, and whether it downloads and installs by itself. */
export interface UpdaterConfig {
  /** The feed's folder, where electron-builder's `latest*.yml` files are. */
  readonly feedUrl: string;
  /** A newer version found by a check is downloaded at once (`check` then hands back the download). */
  readonly autoDownload: boolean;
  /** A downloaded update is installed when the app quits, even if the person never chose "Restart to update". */
  readonly autoInstallOnAppQuit: boolean;
}

/** What a check found: the feed's version, whether it is newer than the running one, and its download when one began. */
export interface UpdateCheck {
  readonly version: string;
  readonly newer: boolean;
  /** Present when the updater began downloading by itself (`autoDownload`); settles when the file is verified. */
  readonly download: Promise<void> | null;
}

/** What the updater tells while it works. */
export interface UpdaterListener {
  /** How far a download is, 0 to 100. */
  onProgress(percent: number): void;
}

/** Looks for, downloads and installs updates from one feed; every check of what it downloads is its own. */
export interface Updater {
  configure(config: UpdaterConfig): void;
  setListener(listener: UpdaterListener): void;
  /** Reads the feed. Rejects when it cannot be reached or read. */
  check(): Promise<UpdateCheck>;
  /** Downloads the version the last check found and verifies it; rejects when it cannot, or when it does not verify. */
  download(): Promise<void>;
  /** Quits the app, installs the downloaded update and starts it again. */
  install(): void;
}

/** Node's and undici's codes of a network that did not answer: no network, no name, nobody listening, too slow. */
const unreachableCodes = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'EPIPE',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_HEADERS_TIMEOUT',
]);

/** Chromium's network errors as Electron's `net` reports them in a message (electron-updater's requests in the app). */
const chromiumUnreachable =
  /net::ERR_(INTERNET_DISCONNECTED|NAME_NOT_RESOLVED|NAME_RESOLUTION_FAILED|CONNECTION_REFUSED|CONNECTION_RESET|CONNECTION_CLOSED|CONNECTION_TIMED_OUT|CONNECTION_FAILED|TIMED_OUT|ADDRESS_UNREACHABLE|NETWORK_CHANGED|NETWORK_ACCESS_DENIED|PROXY_CONNECTION_FAILED|EMPTY_RESPONSE)/;

/**
 * The reason, in a few words, when an error only says the feed could not be reached (a code of Node's, or Chromium's
 * `net::ERR_…`, on the error or its causes); null for any other failure (an answer that is not a feed, a file that does
 * not verify).
 */
export function unreachableReason(error: unknown): string | null {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth++) {
    if (typeof current !== 'object') break;
    const { code, message, cause } = current as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof code === 'string' && unreachableCodes.has(code)) return code;
    const chromium = typeof message === 'string' ? chromiumUnreachable.exec(message) : null;
    if (chromium) return chromium[0];
    current = cause;
  }
  return null;
}
