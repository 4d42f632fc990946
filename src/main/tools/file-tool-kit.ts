/*
 * What the built-in file tools share: their limits, the workspace a call works in, and the texts they answer with (a
 * write's diff, a note on hard links, an exact replacement).
 */

import { createTwoFilesPatch } from 'diff';
import { z } from 'zod';
import { WorkbenchError } from '../../shared/errors';
import type { WorkspaceFiles } from '../workspace/workspace-files';

export const limits = {
  readBytes: 256 * 1024,
  wholeFileBytes: 2 * 1024 * 1024,
  writeBytes: 5 * 1024 * 1024,
  listEntries: 2000,
  searchResults: 200,
  /** How much of an old file a preview reads; past it the preview says so. */
  previewBytes: 2 * 1024 * 1024,
} as const;

/**
 * The line diff (Myers) costs time in proportion to the file's length times the number of changed
 * lines, so a rewrite of a long file took seconds to minutes. Past these limits it gives up
 * (answers undefined) and the change is summed up instead; measured: a 4,000-line rewrite stops
 * in about 0.3 s, a one-line change in a 40,000-line file still diffs in about 40 ms.
 */
const diffLimits = { maxEditLength: 1000, timeout: 300 } as const;

export const relativePathSchema = z.string().min(1).max(1024);

/** The workspace files of the session a call runs in. */
export type FilesOf = (context: { workspacePath: string | null }) => WorkspaceFiles;

/** The session's workspace folder; a session without one is told to ask for it. */
export function workspaceOf(context: { workspacePath: string | null }): string {
  if (!context.workspacePath)
    throw new WorkbenchError('no_workspace', 'This session has no workspace folder: ask the person to choose one.');
  return context.workspacePath;
}

/** "1 line", "12 lines": how many lines a text has. */
export function lineCount(text: string): string {
  let count = text === '' || text.endsWith('\n') ? 0 : 1;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count += 1;
  return count === 1 ? '1 line' : `${count} lines`;
}

/** The change a write makes, as a unified diff; an old file that is not UTF-8 text (null) is not shown. */
export function unifiedDiff(relativePath: string, before: string | null, after: string): string {
  if (before === null) return `[… the old ${relativePath} was not UTF-8 text, so it is not shown; the new text replaces it whole …]`;
  const patch = createTwoFilesPatch(`a/${relativePath}`, `b/${relativePath}`, before, after, undefined, undefined, {
    context: 3,
    ...diffLimits,
  });
  if (patch === undefined)
    return `[… ${relativePath}: ${lineCount(before)} replaced by ${lineCount(after)}; too large to show line by line …]`;
  return patch.replace(/^=+\n/m, '');
}

/** The line the model and the person see when a file has other names that share its content. */
export function linksNote(relativePath: string, links: number, replaced: boolean): string {
  if (links <= 1) return '';
  return replaced
    ? `\n[… ${relativePath} had ${links} hard links; it was replaced by a new file, so its other names keep the old content …]`
    : `\n[… ${relativePath} has ${links} hard links: another name, perhaps outside the workspace, shares this content and changes with it …]`;
}

/** `text` with `oldText` replaced: it must occur exactly once, or `replaceAll` must say every occurrence goes. */
export function replaceExact(text: string, oldText: string, newText: string, replaceAll: boolean, path: string): string {
  if (oldText.length === 0) throw new WorkbenchError('invalid_input', 'oldText is empty; use write_file to create a file.');
  const count = text.split(oldText).length - 1;
  if (count === 0)
    throw new WorkbenchError(
      'invalid_input',
      `oldText was not found in ${path}. Read the file again and copy the text exactly, whitespace included.`,
    );
  if (count > 1 && !replaceAll)
    throw new WorkbenchError(
      'invalid_input',
      `oldText occurs ${count} times in ${path}. Give more context to make it unique, or set replaceAll.`,
    );
  return replaceAll ? text.split(oldText).join(newText) : text.replace(oldText, () => newText);
}
