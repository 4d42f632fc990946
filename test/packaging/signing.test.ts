import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import config, { signing } from '../../electron-builder.config';
import { PackagingSetupError } from '../../build/packaging-error';
import { signingCheck, signingPlan } from '../../build/signing';

const projectRoot = resolve(import.meta.dirname, '../..');

const appleId = { APPLE_ID: 'dev@example.org', APPLE_APP_SPECIFIC_PASSWORD: 'abcd-efgh-ijkl-mnop', APPLE_TEAM_ID: 'TEAM123456' };
const apiKey = {
  APPLE_API_KEY: '/keys/AuthKey_ABC.p8',
  APPLE_API_KEY_ID: 'ABC123',
  APPLE_API_ISSUER: 'c0ffee00-0000-0000-0000-000000000000',
};

/** What a platform prints before it is packed, or the error that stops it. */
function packed(environment: Record<string, string | undefined>, platform: string): string[] {
  const lines: string[] = [];
  signingCheck(signingPlan(environment), (line) => lines.push(line))({ electronPlatformName: platform });
  return lines;
}

describe('signing from the environment', () => {
  it('signs nothing without credentials, and says so once for each platform packed', () => {
    const plan = signingPlan({ PATH: '/usr/bin' });
    expect(plan.mac).toEqual({ identity: '-', notarize: false });
    expect(plan.windows).toEqual({ signExecutable: false });
    const lines: string[] = [];
    const check = signingCheck(plan, (line) => lines.push(line));
    for (const platform of ['darwin', 'darwin', 'win32', 'linux']) check({ electronPlatformName: platform });
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^macOS: not signed: CSC_LINK .* and CSC_NAME .* are not set; an ad-hoc signature only.*; not notarized$/);
    expect(lines[1]).toBe('Windows: not signed: WIN_CSC_LINK and CSC_LINK are not set, so Windows warns whoever runs the installer');
  });

  it('signs for macOS with the certificate in CSC_LINK or the keychain identity CSC_NAME names', () => {
    expect(signingPlan({ CSC_LINK: '/certs/developer-id.p12', CSC_KEY_PASSWORD: 'secret' }).mac).toEqual({
      identity: undefined,
      notarize: false,
    });
    expect(packed({ CSC_LINK: '/certs/developer-id.p12', CSC_KEY_PASSWORD: 'secret' }, 'darwin')).toEqual([
      expect.stringMatching(/^macOS: signed with the certificate in CSC_LINK; not notarized: neither APPLE_ID, .* is set$/),
    ]);
    expect(signingPlan({ CSC_NAME: 'Developer ID Application: Someone (TEAM123456)' }).mac.identity).toBeUndefined();
    expect(packed({ CSC_NAME: 'Developer ID Application: Someone (TEAM123456)' }, 'darwin')[0]).toMatch(
      /^macOS: signed with the keychain identity CSC_NAME names; not notarized/,
    );
    expect(packed({ CSC_LINK: '/certs/developer-id.p12' }, 'darwin')[0]).toContain(
      'opened without a password (CSC_KEY_PASSWORD is not set)',
    );
  });

  it('notarizes a signed macOS app with an Apple ID, an App Store Connect API key or a keychain profile', () => {
    const signed = { CSC_LINK: '/certs/developer-id.p12', CSC_KEY_PASSWORD: 'secret' };
    expect(signingPlan({ ...signed, ...appleId }).mac.notarize).toBe(true);
    expect(packed({ ...signed, ...appleId }, 'darwin')[0]).toMatch(
      /; notarized with APPLE_ID, APPLE_APP_SPECIFIC_PASSWORD and APPLE_TEAM_ID$/,
    );
    expect(signingPlan({ ...signed, ...apiKey }).mac.notarize).toBe(true);
    expect(signingPlan({ ...signed, APPLE_KEYCHAIN_PROFILE: 'workbench-notary' }).mac.notarize).toBe(true);
    // Without a certificate there is nothing to notarize.
    expect(signingPlan({ ...appleId }).mac).toEqual({ identity: '-', notarize: false });
  });

  it('stops a macOS build whose notarization credentials are given only in part, naming what is missing', () => {
    const partial = { CSC_LINK: '/certs/developer-id.p12', APPLE_ID: appleId.APPLE_ID, APPLE_APP_SPECIFIC_PASSWORD: 'abcd-efgh-ijkl-mnop' };
    expect(() => packed(partial, 'darwin')).toThrow(PackagingSetupError);
    expect(() => packed(partial, 'darwin')).toThrow(/APPLE_TEAM_ID is not set, but APPLE_ID and APPLE_APP_SPECIFIC_PASSWORD are/);
    expect(() => packed({ CSC_LINK: '/certs/developer-id.p12', APPLE_API_KEY: apiKey.APPLE_API_KEY }, 'darwin')).toThrow(
      /APPLE_API_KEY_ID and APPLE_API_ISSUER are not set, but APPLE_API_KEY is/,
    );
    // The other platforms are packed as usual.
    expect(packed(partial, 'win32')).toEqual([
      'Windows: signed with the certificate in CSC_LINK (WIN_CSC_LINK is not set), opened without a password (WIN_CSC_KEY_PASSWORD and CSC_KEY_PASSWORD are not set)',
    ]);
    expect(packed(partial, 'linux')).toEqual([]);
  });

  it('signs for Windows with WIN_CSC_LINK, else with CSC_LINK', () => {
    expect(signingPlan({ WIN_CSC_LINK: '/certs/authenticode.pfx' }).windows).toEqual({ signExecutable: true });
    expect(
      packed({ WIN_CSC_LINK: '/certs/authenticode.pfx', WIN_CSC_KEY_PASSWORD: 'secret', CSC_LINK: '/certs/developer-id.p12' }, 'win32'),
    ).toEqual(['Windows: signed with the certificate in WIN_CSC_LINK']);
    expect(signingPlan({ CSC_LINK: '/certs/both.p12', CSC_KEY_PASSWORD: 'secret' }).windows).toEqual({ signExecutable: true });
    // A WIN_CSC_LINK alone signs for Windows, not for macOS.
    expect(signingPlan({ WIN_CSC_LINK: '/certs/authenticode.pfx' }).mac.identity).toBe('-');
  });

  it('counts a variable that holds only blanks as not set, as a CI secret that is not defined expands to nothing', () => {
    expect(signingPlan({ CSC_LINK: '', WIN_CSC_LINK: '  ', APPLE_ID: '' })).toMatchObject({
      mac: { identity: '-', notarize: false },
      windows: { signExecutable: false },
      problems: {},
    });
  });

  it('never prints a credential', () => {
    const environment = { CSC_LINK: 'MIIKsecretbase64', CSC_KEY_PASSWORD: 'hunter2', ...appleId, WIN_CSC_KEY_PASSWORD: 'pfx-pass' };
    const lines = [...packed(environment, 'darwin'), ...packed(environment, 'win32')];
    expect(lines).toHaveLength(2);
    for (const value of Object.values(environment)) for (const line of lines) expect(line).not.toContain(value);
  });

  it('refuses an environment whose variables are not text', () => {
    expect(() => signingPlan({ CSC_LINK: 42 })).toThrow(PackagingSetupError);
    expect(() => signingPlan({ CSC_LINK: 42 })).toThrow(/CSC_LINK must be text/);
  });
});

describe('the packaging configuration signs as the environment says', () => {
  it('takes the identity, notarization and Windows signing from the plan for this process’s environment', () => {
    expect(signing).toEqual(signingPlan(process.env));
    expect(config.mac?.identity).toBe(signing.mac.identity);
    expect(config.mac?.notarize).toBe(signing.mac.notarize);
    expect(config.win?.signExecutable).toBe(signing.windows.signExecutable);
    expect(typeof config.beforePack).toBe('function');
  });

  it('signs macOS under the hardened runtime with the entitlements the runtime and the native modules need', () => {
    expect(config.mac?.hardenedRuntime).toBe(true);
    expect(config.mac?.entitlements).toBe('build/entitlements.mac.plist');
    expect(config.mac?.entitlementsInherit).toBe('build/entitlements.mac.plist');
    const plist = readFileSync(resolve(projectRoot, 'build/entitlements.mac.plist'), 'utf8').replace(/<!--[\s\S]*?-->/g, '');
    const granted = [...plist.matchAll(/<key>([^<]+)<\/key>\s*<true\/>/g)].map((match) => match[1]);
    expect(granted.sort()).toEqual([
      'com.apple.security.cs.allow-jit',
      'com.apple.security.cs.allow-unsigned-executable-memory',
      'com.apple.security.cs.disable-library-validation',
    ]);
  });
});
