/*
 * Whether two endpoints are the same server: the same kind at the same address, however the address is written (a
 * trailing slash, `localhost` for 127.0.0.1, the scheme's own port written out).
 */

import type { ProviderKind } from './domain';

/** Names of this computer that reach the same server. */
const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]']);

/** An address in one spelling: scheme, host (this computer as 127.0.0.1), port and path without its trailing slash. */
export function addressKey(baseUrl: string): string {
  try {
    const url = new URL(baseUrl.trim());
    const host = loopbackHosts.has(url.hostname) ? '127.0.0.1' : url.hostname.toLowerCase();
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    return `${url.protocol}//${host}:${port}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return baseUrl.trim().replace(/\/+$/, '');
  }
}

interface ServerPlace {
  readonly kind: ProviderKind;
  readonly baseUrl: string;
}

/** Whether `a` and `b` are the same server spoken to the same way. */
export function sameServer(a: ServerPlace, b: ServerPlace): boolean {
  return a.kind === b.kind && addressKey(a.baseUrl) === addressKey(b.baseUrl);
}

/** The endpoint saved for `server`, if one is. */
export function savedServer<T extends ServerPlace>(saved: readonly T[], server: ServerPlace): T | undefined {
  return saved.find((endpoint) => sameServer(endpoint, server));
}
