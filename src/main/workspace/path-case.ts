/*
 * Path comparisons by the file system's case rules: on a file system that ignores letter case (macOS's and Windows'
 * by default), `/Data/x` and `/data/x` are one file, and a check that compares text would let either past the other.
 */

import { lstatSync, type Stats } from 'node:fs';
import { basename, dirname, isAbsolute, relative, sep } from 'node:path';
import { BoundedMap } from '../../shared/bounded-map';

/** What each folder's file system was found to do, asked once per folder (a few hundred at most). */
const found = new BoundedMap<string, boolean>({ max: 512 });

/**
 * Whether the file system holding `path` ignores letter case: the same file is found under the name with its case
 * turned. Where that cannot be tried (no letter in any name on the way, nothing there yet), the system's default:
 * case ignored on macOS and Windows, kept elsewhere.
 */
export function ignoresCase(path: string, platform: NodeJS.Platform = process.platform): boolean {
  const known = found.get(path);
  if (known !== undefined) return known;
  let probe = path;
  // The nearest name on the way up that has a letter and exists.
  for (;;) {
    const name = basename(probe);
    if (/[a-z]/i.test(name) && name.toLowerCase() !== name.toUpperCase()) {
      const here = quietStat(probe);
      if (here) {
        const turned = name === name.toLowerCase() ? name.toUpperCase() : name.toLowerCase();
        const other = quietStat(`${dirname(probe)}${sep}${turned}`);
        const result = other !== undefined && other.ino === here.ino && other.dev === here.dev;
        found.set(path, result);
        return result;
      }
    }
    const parent = dirname(probe);
    if (parent === probe) break;
    probe = parent;
  }
  const fallback = platform === 'darwin' || platform === 'win32';
  found.set(path, fallback);
  return fallback;
}

/** What is at a path, or undefined where nothing is or it cannot be asked (a name no file can have). */
function quietStat(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/**
 * A path as compared on its file system: in one case where the file system ignores case, as macOS's and Windows' do,
 * and on macOS in one Unicode form too (an accented letter written as one character or as a letter and a mark).
 */
export function comparablePath(path: string, caseIgnored: boolean, platform: NodeJS.Platform = process.platform): string {
  if (!caseIgnored) return path;
  // Only macOS's file systems take both forms of a name as one; on Windows they are two names.
  return (platform === 'darwin' ? path.normalize('NFC') : path).toLowerCase();
}

/**
 * Whether `candidate` is `root` or inside it (both absolute), by the case rules of `root`'s file system (asked of the
 * disk unless given).
 */
export function isWithin(root: string, candidate: string, caseIgnored: boolean = ignoresCase(root)): boolean {
  const fromRoot = relative(comparablePath(root, caseIgnored), comparablePath(candidate, caseIgnored));
  return fromRoot === '' || (fromRoot !== '..' && !fromRoot.startsWith(`..${sep}`) && !isAbsolute(fromRoot));
}

/**
 * A key for a Map or Set of absolute paths, equal for two spellings of one place by its file system's case rules (asked
 * of the disk unless given).
 */
export function pathKey(path: string, caseIgnored: boolean = ignoresCase(path)): string {
  return comparablePath(path, caseIgnored);
}

/** Whether two absolute paths name the same place by their file system's case rules. */
export function samePath(one: string, other: string, caseIgnored: boolean = ignoresCase(one)): boolean {
  return comparablePath(one, caseIgnored) === comparablePath(other, caseIgnored);
}
