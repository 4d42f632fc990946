/*
 * The paths the agent may not write (.git, environment and key files), and paths resolved against the workspace for
 * showing the person their folder.
 */

import { lstat, realpath, stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { WorkbenchError } from '../../shared/errors';
import { currentNamingPlatform, PathRefusedError, workspaceSegments, type NamingPlatform } from './path-text';
import { ignoresCase, isWithin } from './path-case';

export { PathRefusedError } from './path-text';

export interface ResolvedPath {
  /** Absolute, with every link in the existing part resolved. */
  readonly absolute: string;
  /** Relative to the workspace, with `/` separators. */
  readonly relative: string;
  readonly exists: boolean;
  readonly kind: 'file' | 'directory' | 'missing';
}

export interface ResolveOptions {
  readonly forWrite: boolean;
  /** Folders no tool may write into even when they lie inside the workspace (the app's own data). */
  readonly protectedRoots?: readonly string[];
  /** Whose naming rules apply; this machine's by default. */
  readonly platform?: NamingPlatform;
}

function normalizedSegments(relativePath: string): string[] {
  return relativePath
    .normalize('NFKC')
    .split('/')
    .filter((segment) => segment.length > 0);
}

/**
 * Why this path is refused for lying in a .git folder, or null: the part of `protectedReason` that
 * holds for every write, a restore the person asked for included (judged as `protectedReason` judges).
 */
export function gitFolderReason(relativePath: string): string | null {
  return normalizedSegments(relativePath).some((segment) => segment.toLowerCase() === '.git')
    ? 'the .git folder belongs to git; change the repository with git commands instead.'
    : null;
}

const privateKeyNames =
  /^(id_(rsa|dsa|ecdsa|ed25519)(\.pub)?|.*\.(pem|key|p12|pfx|jks|keystore|ppk|asc|gpg)|\.netrc|\.pgpass|credentials|\.npmrc|\.pypirc)$/i;

/**
 * Why writing to this workspace-relative path is refused, or null. Case-insensitive, as some file
 * systems are, and judged on the NFKC form too, so a look-alike such as `.ｅnv` counts as `.env`.
 */
export function protectedReason(relativePath: string): string | null {
  const reason = gitFolderReason(relativePath);
  if (reason) return reason;
  const name = normalizedSegments(relativePath).at(-1) ?? '';
  if (/^\.env(\..*)?$/i.test(name)) return 'environment files hold secrets and are not written by the agent.';
  if (privateKeyNames.test(name)) return 'key and credential files are not written by the agent.';
  return null;
}

/**
 * Resolves a path against the workspace: names that mean another place (see `workspaceSegments`),
 * `..` escapes, absolute paths outside, links that lead out (in any folder on the way), loops,
 * devices, FIFOs and sockets are refused, and for writes so are protected paths. Links are
 * resolved at every call, so a link made earlier in the session is checked like any other.
 *
 * This answers by path, so what it answers can change before the path is used; it suits showing
 * the person their folder. The file tools go through `WorkspaceFiles`, which opens what it checks.
 */
export async function resolveWorkspacePath(workspaceRoot: string, requested: string, options: ResolveOptions): Promise<ResolvedPath> {
  let root: string;
  try {
    root = await realpath(workspaceRoot);
  } catch {
    throw new WorkbenchError('no_workspace', `The workspace ${workspaceRoot} is not there any more.`);
  }
  const platform = options.platform ?? currentNamingPlatform();
  const lexical = join(root, ...workspaceSegments(requested, [workspaceRoot, root], platform, platform === 'win32' || ignoresCase(root)));

  // Resolve links in the part of the path that exists; the rest is created inside it.
  let existing = lexical;
  const missing: string[] = [];
  for (;;) {
    try {
      await lstat(existing);
      break;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') throw new PathRefusedError(requested, 'it goes through a loop of links.');
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw new PathRefusedError(requested, `it cannot be read (${code ?? 'error'}).`);
      // Exact text: `existing` is `root` with names joined to it and taken off again, never spelled another way.
      if (existing === root) break;
      missing.unshift(existing.slice(existing.lastIndexOf(sep) + 1));
      existing = resolve(existing, '..');
    }
  }
  let realExisting: string;
  try {
    realExisting = await realpath(existing);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new PathRefusedError(
      requested,
      code === 'ELOOP'
        ? 'it goes through a loop of links.'
        : code === 'ENOENT'
          ? 'it goes through a link to nothing.'
          : `it cannot be resolved (${code ?? 'error'}).`,
    );
  }
  // Both real paths, so spelled alike; compared by the file system's case rules all the same, as every path is.
  if (!isWithin(root, realExisting)) throw new PathRefusedError(requested, 'a link on the way leads outside the workspace.');
  const absolute = missing.length > 0 ? join(realExisting, ...missing) : realExisting;
  const relativePath = relative(root, absolute).split(sep).join('/') || '.';

  let kind: ResolvedPath['kind'] = 'missing';
  if (missing.length === 0) {
    const info = await stat(absolute);
    if (info.isFile()) kind = 'file';
    else if (info.isDirectory()) kind = 'directory';
    else throw new PathRefusedError(requested, 'it is a device, pipe or socket, not a file or folder.');
  }
  if (options.forWrite) {
    const reason = protectedReason(relativePath) ?? protectedReason(requested.replace(/^\/+/, ''));
    if (reason) throw new PathRefusedError(requested, reason);
    if (relativePath === '.') throw new PathRefusedError(requested, 'the workspace folder itself cannot be replaced.');
    for (const protectedRoot of options.protectedRoots ?? []) {
      let realProtected = protectedRoot;
      try {
        realProtected = await realpath(protectedRoot);
      } catch {
        // A protected folder that does not exist yet is compared as given.
      }
      if (isWithin(realProtected, absolute)) throw new PathRefusedError(requested, "it is inside the app's own data folder.");
    }
  }
  return { absolute, relative: relativePath, exists: kind !== 'missing', kind };
}
