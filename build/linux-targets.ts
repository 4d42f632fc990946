/*
 * Which Linux packages `npm run dist` makes, from the project's package.json: an AppImage and a .tar.gz always, and a
 * .deb once package.json names the project's web address (`homepage`).
 */
import { z } from 'zod';
import { PackagingSetupError } from './packaging-error';

/**
 * What the Linux targets depend on in package.json. electron-builder 26 asks a project address only of the targets it
 * builds with fpm (deb, rpm, pacman, apk, freebsd, p5p, sh: app-builder-lib/out/targets/FpmTarget.js, "Please specify
 * project homepage"), which puts it in the package's metadata; AppImage, snap, flatpak and the archives (tar.gz, zip, …)
 * ask for none. It would also take a GitHub `repository` as the address, which this project has not either.
 */
const manifestSchema = z.object({
  homepage: z
    .string({ error: "homepage in package.json must be a string, the project's web address" })
    .trim()
    .min(1, "homepage in package.json is empty: remove it, or give the project's web address")
    .optional(),
});

/** The Linux targets of electron-builder this configuration uses. */
export type LinuxTarget = 'AppImage' | 'tar.gz' | 'deb';

/**
 * The Linux targets for a package.json: AppImage (one file that runs on most distributions) and tar.gz (unpacked and run where it lies) need
 * nothing more; the .deb is added when the manifest has a `homepage`. A `homepage` that is not a non-empty string is
 * refused with a {@link PackagingSetupError}.
 */
export function linuxTargets(manifest: unknown): LinuxTarget[] {
  const parsed = manifestSchema.safeParse(manifest);
  if (!parsed.success) {
    throw new PackagingSetupError(`package.json cannot be packed from: ${parsed.error.issues.map((issue) => issue.message).join('; ')}`);
  }
  return parsed.data.homepage === undefined ? ['AppImage', 'tar.gz'] : ['AppImage', 'tar.gz', 'deb'];
}
