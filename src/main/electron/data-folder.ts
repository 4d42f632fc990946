/*
 * The data folder a run from the `electron` binary may be given instead of the person's own (WORKBENCH_DATA_DIR), so
 * that the Electron smoke tests start on a fresh folder and leave the person's sessions, settings and keys alone.
 */

import { statSync } from 'node:fs';
import { posix, win32 } from 'node:path';
import { z } from 'zod';

/** The variable that names the data folder of a run from the `electron` binary. */
export const dataFolderVariable = 'WORKBENCH_DATA_DIR';

/** Where the app keeps its data on this run, or why it does not start. */
export type DataFolderChoice =
  /** The person's own data folder (Electron's `userData`). */
  | { readonly kind: 'default' }
  /** The folder WORKBENCH_DATA_DIR names. */
  | { readonly kind: 'override'; readonly path: string }
  /** An installed app takes no such variable: it keeps the person's own folder and says why on its error output. */
  | { readonly kind: 'ignored'; readonly reason: string }
  /** The variable names no folder the app can use: the app does not start, so nothing is written anywhere. */
  | { readonly kind: 'refused'; readonly reason: string };

export interface DataFolderContext {
  /** Electron's `app.isPackaged`: an installed app, rather than a run from the `electron` binary. */
  readonly packaged: boolean;
  readonly platform: NodeJS.Platform;
  /** Whether a path is a folder; the file system's answer unless given. */
  readonly isFolder?: (path: string) => boolean;
}

const isFolderOnDisk = (path: string): boolean => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

/**
 * The data folder WORKBENCH_DATA_DIR asks for. It is honoured only where the app runs from the `electron` binary
 * (development, the smoke tests): an installed app's data must not move because a variable was left set in a shell's
 * profile, which would make every session seem gone. The folder must be given as an absolute path and exist already,
 * so that a typo neither starts the app on a new empty folder nor falls back to the person's own. Unset or empty, the
 * person's own folder is used.
 */
export function chooseDataFolder(env: NodeJS.ProcessEnv, context: DataFolderContext): DataFolderChoice {
  const raw = env[dataFolderVariable];
  if (raw === undefined || raw === '') return { kind: 'default' };
  if (context.packaged)
    return {
      kind: 'ignored',
      reason: `${dataFolderVariable} is ignored by the installed app, which keeps its data in its own folder; it applies only to a run from the electron binary.`,
    };
  const paths = context.platform === 'win32' ? win32 : posix;
  const isFolder = context.isFolder ?? isFolderOnDisk;
  const parsed = z
    .string()
    .refine((value) => !value.includes('\0'), 'it holds a NUL character')
    .refine((value) => paths.isAbsolute(value), 'it is not an absolute path')
    .refine((value) => isFolder(value), 'no folder is there')
    .safeParse(raw);
  if (!parsed.success) {
    const why = parsed.error.issues[0]?.message ?? 'it is not a folder';
    return {
      kind: 'refused',
      reason: `${dataFolderVariable} must name an existing folder by its absolute path: ${why} (${JSON.stringify(raw)}).`,
    };
  }
  return { kind: 'override', path: paths.normalize(parsed.data) };
}
