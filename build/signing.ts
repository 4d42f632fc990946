/*
 * Whether `npm run dist` signs and notarizes, decided from the environment variables electron-builder reads the
 * credentials from: the macOS certificate or keychain identity, Apple's notarization credentials, the Windows
 * certificate. The secrets stay in the environment, where electron-builder reads them itself; this decides what is
 * done with them and says it in one line per platform.
 */
import { z } from 'zod';
import { PackagingSetupError } from './packaging-error';

/** A variable counts as set when it holds more than blanks: a CI secret that is not defined expands to an empty string. */
const variable = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === '' ? undefined : value));

/**
 * The variables electron-builder 26 reads for signing (app-builder-lib/out): CSC_LINK and CSC_KEY_PASSWORD
 * (platformPackager.js getCscLink, getCscPassword), CSC_NAME (codeSign/macCodeSign.js findIdentity), WIN_CSC_LINK and
 * WIN_CSC_KEY_PASSWORD (winPackager.js), and the three ways to notarize (mac/MacTargetHelper.js getNotarizeOptions).
 */
const signingEnvironmentSchema = z.object({
  CSC_LINK: variable,
  CSC_KEY_PASSWORD: variable,
  CSC_NAME: variable,
  WIN_CSC_LINK: variable,
  WIN_CSC_KEY_PASSWORD: variable,
  APPLE_ID: variable,
  APPLE_APP_SPECIFIC_PASSWORD: variable,
  APPLE_TEAM_ID: variable,
  APPLE_API_KEY: variable,
  APPLE_API_KEY_ID: variable,
  APPLE_API_ISSUER: variable,
  APPLE_KEYCHAIN_PROFILE: variable,
});
type SigningEnvironment = z.infer<typeof signingEnvironmentSchema>;
type Variable = keyof SigningEnvironment;

/** A way to notarize: used when any of its `startedBy` variables is set, and then all of its `needs` must be. */
interface Notarization {
  readonly startedBy: readonly Variable[];
  readonly needs: readonly Variable[];
}
const withAppleId: Notarization = {
  startedBy: ['APPLE_ID', 'APPLE_APP_SPECIFIC_PASSWORD'],
  needs: ['APPLE_ID', 'APPLE_APP_SPECIFIC_PASSWORD', 'APPLE_TEAM_ID'],
};
const withApiKey: Notarization = {
  startedBy: ['APPLE_API_KEY', 'APPLE_API_KEY_ID', 'APPLE_API_ISSUER'],
  needs: ['APPLE_API_KEY', 'APPLE_API_KEY_ID', 'APPLE_API_ISSUER'],
};
const withKeychainProfile: Notarization = { startedBy: ['APPLE_KEYCHAIN_PROFILE'], needs: ['APPLE_KEYCHAIN_PROFILE'] };
/** In the order electron-builder tries them: the first one started is the one used. */
const notarizations = [withAppleId, withApiKey, withKeychainProfile];

/** A platform whose packages can be signed. */
export type SignedPlatform = 'mac' | 'windows';

/** What the environment allows: the options electron-builder takes for it, and one line per platform saying it. */
export interface SigningPlan {
  readonly mac: {
    /**
     * electron-builder's `mac.identity`: unset to sign with the certificate of CSC_LINK or the identity CSC_NAME names;
     * `-` for an ad-hoc signature without one, which Apple silicon needs to run the app at all once its fuses are
     * flipped (they change the Electron binary). `null`, no signature, is never chosen.
     */
    readonly identity: '-' | undefined;
    readonly notarize: boolean;
  };
  readonly windows: { readonly signExecutable: boolean };
  /** What happens on each platform, and with which variable, or why not; never a variable's value. */
  readonly lines: Readonly<Record<SignedPlatform, string>>;
  /** Why a platform cannot be packed with this environment (a set of credentials given only in part), if it cannot. */
  readonly problems: Readonly<Partial<Record<SignedPlatform, string>>>;
}

const list = (names: readonly string[]): string =>
  names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;

/**
 * What is signed and notarized with the given environment (`process.env` when packing). A variable that is not a
 * string is refused with a {@link PackagingSetupError}.
 */
export function signingPlan(environment: Readonly<Record<string, unknown>>): SigningPlan {
  const parsed = signingEnvironmentSchema.safeParse(environment);
  if (!parsed.success) {
    const names = parsed.error.issues.map((issue) => issue.path.join('.'));
    throw new PackagingSetupError(`The signing environment cannot be read: ${list(names)} must be text`);
  }
  const env = parsed.data;
  const isSet = (name: Variable): boolean => env[name] !== undefined;
  const problems: Partial<Record<SignedPlatform, string>> = {};

  // macOS: a certificate (CSC_LINK, a .p12 file, its path or base64) or an identity in the keychain (CSC_NAME).
  const macSigner = isSet('CSC_LINK') ? 'the certificate in CSC_LINK' : isSet('CSC_NAME') ? 'the keychain identity CSC_NAME names' : null;
  const macPassword = isSet('CSC_LINK') && !isSet('CSC_KEY_PASSWORD') ? ', opened without a password (CSC_KEY_PASSWORD is not set)' : '';
  const notarization = notarizations.find((way) => way.startedBy.some(isSet));
  const missing = notarization?.needs.filter((name) => !isSet(name)) ?? [];
  let notarize = false;
  let notarized: string;
  if (macSigner === null) {
    notarized = 'not notarized';
  } else if (notarization === undefined) {
    notarized = `not notarized: neither ${list(withAppleId.needs)}, nor ${list(withApiKey.needs)}, nor APPLE_KEYCHAIN_PROFILE is set`;
  } else if (missing.length > 0) {
    const given = notarization.needs.filter(isSet);
    notarized = `not notarized: ${list(missing)} ${missing.length > 1 ? 'are' : 'is'} not set`;
    problems.mac =
      `macOS notarization is given only in part: ${list(missing)} ${missing.length > 1 ? 'are' : 'is'} not set, ` +
      `but ${list(given)} ${given.length > 1 ? 'are' : 'is'}. Set the rest, or unset these to pack without notarizing.`;
  } else {
    notarize = true;
    notarized = `notarized with ${list(notarization.needs)}`;
  }
  const macLine =
    macSigner === null
      ? 'macOS: not signed: CSC_LINK (a certificate) and CSC_NAME (a keychain identity) are not set; an ad-hoc signature ' +
        `only, which Gatekeeper blocks once downloaded; ${notarized}`
      : `macOS: signed with ${macSigner}${macPassword}; ${notarized}`;

  // Windows: WIN_CSC_LINK, else CSC_LINK (electron-builder falls back to it, so a macOS certificate there is tried too).
  const windowsLink = isSet('WIN_CSC_LINK') ? 'WIN_CSC_LINK' : isSet('CSC_LINK') ? 'CSC_LINK (WIN_CSC_LINK is not set)' : null;
  const windowsPassword =
    isSet('WIN_CSC_KEY_PASSWORD') || isSet('CSC_KEY_PASSWORD')
      ? ''
      : ', opened without a password (WIN_CSC_KEY_PASSWORD and CSC_KEY_PASSWORD are not set)';
  const windowsLine =
    windowsLink === null
      ? 'Windows: not signed: WIN_CSC_LINK and CSC_LINK are not set, so Windows warns whoever runs the installer'
      : `Windows: signed with the certificate in ${windowsLink}${windowsPassword}`;

  return {
    mac: { identity: macSigner === null ? '-' : undefined, notarize },
    windows: { signExecutable: windowsLink !== null },
    lines: { mac: macLine, windows: windowsLine },
    problems,
  };
}

/** The platforms electron-builder packs for (its `electronPlatformName`) that are signed. */
const signedPlatforms: Readonly<Record<string, SignedPlatform>> = { darwin: 'mac', mas: 'mac', win32: 'windows' };

/**
 * electron-builder's `beforePack` hook for a plan: before a platform is packed, it stops with a
 * {@link PackagingSetupError} when the plan says the platform cannot be, and otherwise prints the platform's line once.
 */
export function signingCheck(
  plan: SigningPlan,
  print: (line: string) => void,
): (context: { readonly electronPlatformName: string }) => void {
  const told = new Set<SignedPlatform>();
  return ({ electronPlatformName }) => {
    const platform = signedPlatforms[electronPlatformName];
    if (platform === undefined) return;
    const problem = plan.problems[platform];
    if (problem !== undefined) throw new PackagingSetupError(problem);
    if (told.has(platform)) return;
    told.add(platform);
    print(plan.lines[platform]);
  };
}
