/*
 * Walks from the workspace root to a path one name at a time, following a link only when it stays inside the workspace.
 */

import { fstatSync, lstatSync, readlinkSync, realpathSync, type Stats } from 'node:fs';
import { WorkbenchError } from '../../shared/errors';
import { isLinkRefusal, type FolderAccess, type OpenFolder } from './folder-access';
import { ignoresCase, isWithin } from './path-case';
import { linkSegments, PathRefusedError, windowsNameProblem, workspaceSegments, type NamingPlatform } from './path-text';

/** What a walk is for: whether a link at the last name is followed. */
export interface WalkIntent {
  /** Follow a link at the last name (read, write); a delete moves the link itself. */
  readonly followLast: boolean;
}

/** Where a path led: the open folder that holds it, and what is there now. */
export interface Found {
  /** The workspace root, a real path. */
  readonly root: string;
  /** The folder holding the entry, or the deepest existing folder on the way; open, and the caller closes it. */
  readonly folder: OpenFolder;
  /** Folders that do not exist yet between `folder` and the entry. */
  readonly missing: readonly string[];
  /** The entry's name in its folder; '' for the root itself. */
  readonly name: string;
  /** Names from the root to the entry, links inside the workspace replaced by where they lead. */
  readonly segments: readonly string[];
  /** `segments` joined with `/`, or `.` for the root. */
  readonly relative: string;
  /** The path as the model wrote it, made relative, before links were followed. */
  readonly asWritten: string;
  /** What is at the entry now (a link is not followed); null when it does not exist. */
  readonly entry: Stats | null;
}

/** A walk through more links than this is taken to be a loop, as the kernel's own limit (40) does. */
const maxHops = 40;

type Step = { readonly found: Found } | { readonly again: readonly string[]; readonly mustExist: number };

/**
 * Walks from the workspace root to a path one name at a time, opening each folder without
 * following a link (see {@link FolderAccess} for what each platform guarantees). A link on the
 * way is not handed to the kernel: its target is read and, when it lies inside the workspace,
 * the walk starts again from the root along it, so links that stay inside keep working and a
 * link swapped in at any moment can only lead to a refusal. Loops, links to nothing and links
 * out are refused.
 */
export class WorkspaceWalk {
  constructor(
    private readonly rootAsGiven: string,
    private readonly access: FolderAccess,
    private readonly platform: NamingPlatform,
  ) {}

  /** The workspace root as a real path; a missing workspace is its own error. */
  realRoot(): string {
    try {
      return realpathSync.native(this.rootAsGiven);
    } catch {
      throw new WorkbenchError('no_workspace', `The workspace ${this.rootAsGiven} is not there any more.`);
    }
  }

  /** Whether the workspace's file system ignores letter case: an absolute path written in another case is inside. */
  private caseIgnored(root: string): boolean {
    return this.platform === 'win32' || ignoresCase(root);
  }

  /** Finds `requested`; the caller must close `found.folder`. */
  find(requested: string, intent: WalkIntent): Found {
    const root = this.realRoot();
    let segments: readonly string[] = workspaceSegments(requested, [this.rootAsGiven, root], this.platform, this.caseIgnored(root));
    const asWritten = segments.join('/') || '.';
    let mustExist = 0;
    for (let hop = 0; hop <= maxHops; hop += 1) {
      const step = this.walkOnce(requested, root, segments, mustExist, asWritten, intent);
      if ('found' in step) return step.found;
      segments = step.again;
      mustExist = step.mustExist;
    }
    throw new PathRefusedError(requested, 'it goes through a loop of links, or kept changing while it was opened.');
  }

  private walkOnce(
    requested: string,
    root: string,
    segments: readonly string[],
    mustExist: number,
    asWritten: string,
    intent: WalkIntent,
  ): Step {
    let folder = this.access.openRoot(root);
    let handedOver = false;
    const found = (index: number, entry: Stats | null): Step => {
      handedOver = true;
      const missing = entry === null ? segments.slice(index, -1) : [];
      const relative = segments.join('/') || '.';
      return { found: { root, folder, missing, name: segments.at(-1) ?? '', segments, relative, asWritten, entry } };
    };
    try {
      for (let index = 0; index < segments.length; index += 1) {
        const name = segments[index] as string;
        const last = index === segments.length - 1;
        if (!last) {
          // Most folders on the way are plain folders: open first, and look closer only when that fails.
          const child = this.openPlainFolder(folder, name);
          if (child) {
            this.access.close(folder);
            folder = child;
            continue;
          }
        }
        const path = this.access.pathOf(folder, name);
        let entry: Stats | undefined;
        try {
          entry = lstatSync(path, { throwIfNoEntry: false });
        } catch (error) {
          // Only a full-path platform gets here: a folder on the way became a link or a file.
          if (isLinkRefusal(error)) return { again: segments, mustExist };
          throw error;
        }
        if (!entry) {
          if (index < mustExist) throw new PathRefusedError(requested, 'it goes through a link to nothing.');
          return found(index, null);
        }
        if (entry.isSymbolicLink() && (!last || intent.followLast)) {
          let target: string;
          try {
            target = readlinkSync(path);
          } catch {
            // No longer a link: it changed under the walk; walk again.
            return { again: segments, mustExist };
          }
          const base = segments.slice(0, index);
          const led = linkSegments(target, base, [this.rootAsGiven, root], this.platform, this.caseIgnored(root));
          // A short name such as GIT~1 in a target would reach .git under a name the protected-path checks do not know.
          const problem = this.platform === 'win32' ? (led ?? []).map(windowsNameProblem).find((found) => found !== null) : undefined;
          if (problem) throw new PathRefusedError(requested, `a link on the way leads to a name Windows reads as another: ${problem}.`);
          if (led === null)
            throw new PathRefusedError(
              requested,
              last ? 'it is a link to a place outside the workspace.' : 'a link on the way leads outside the workspace.',
            );
          return { again: [...led, ...segments.slice(index + 1)], mustExist: led.length + Math.max(0, mustExist - index - 1) };
        }
        if (last) return found(index, entry);
        if (!entry.isDirectory())
          throw new WorkbenchError('invalid_input', `${segments.slice(0, index + 1).join('/')} is a file, not a folder.`);
        // A plain folder now, though it would not open as one a moment ago: it changed; walk again.
        return { again: segments, mustExist };
      }
      return found(0, folder.fd === null ? lstatSync(folder.absolute) : fstatSync(folder.fd));
    } finally {
      if (!handedOver) this.access.close(folder);
    }
  }

  /** Opens a plain folder on the way, or answers null when it is a link, a file or missing now (the caller looks closer). */
  private openPlainFolder(folder: OpenFolder, name: string): OpenFolder | null {
    try {
      return this.access.openFolder(folder, name);
    } catch (error) {
      if (isLinkRefusal(error) || (error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  /**
   * Throws unless `where` (a path an open descriptor has now) lies inside the root, by the root's file system's case
   * rules (`caseIgnored`, asked of the disk unless given).
   */
  static checkInside(requested: string, root: string, where: string, caseIgnored?: boolean): void {
    if (!isWithin(root, where, caseIgnored))
      throw new PathRefusedError(requested, 'it was moved outside the workspace while it was being opened; nothing was changed.');
  }
}
