import { describe, expect, it } from 'vitest';
import { unreachableReason } from '../../../src/main/updates/updater';

describe('a failure that only says the feed could not be reached', () => {
  it.each([
    ['Node, no name', Object.assign(new Error('getaddrinfo ENOTFOUND updates.example.org'), { code: 'ENOTFOUND' }), 'ENOTFOUND'],
    ['Node, nobody listening', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), 'ECONNREFUSED'],
    ['fetch, the cause', new TypeError('fetch failed', { cause: Object.assign(new Error('x'), { code: 'ETIMEDOUT' }) }), 'ETIMEDOUT'],
    ['Electron’s net, offline', new Error('net::ERR_INTERNET_DISCONNECTED'), 'net::ERR_INTERNET_DISCONNECTED'],
    ['Electron’s net, no name', new Error('net::ERR_NAME_NOT_RESOLVED'), 'net::ERR_NAME_NOT_RESOLVED'],
  ])('is told from others (%s)', (_what, error, reason) => {
    expect(unreachableReason(error)).toBe(reason);
  });

  it.each([
    ['a feed that names no such channel', new Error('Cannot find channel "latest-linux.yml" update info: HttpError: 404')],
    ['a file that does not verify', new Error('sha512 checksum mismatch, expected abc, got def')],
    ['a certificate refused', new Error('net::ERR_CERT_AUTHORITY_INVALID')],
    ['nothing at all', undefined],
  ])('is not any other failure (%s)', (_what, error) => {
    expect(unreachableReason(error)).toBeNull();
  });
});
