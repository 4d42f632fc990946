import { join } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import picomatch from 'picomatch';
import { z } from 'zod';
import { WorkbenchError } from '../../shared/errors';
import { defineTool, type Tool, type ToolContext } from '../agent/ports/tools';
import { looksBinaryFd, readAllSync, readLinesFromFd } from '../workspace/fd-read';
import { walk } from '../workspace/file-walk';
import type { FolderAccess } from '../workspace/folder-access';
import { notUtf8Error } from '../workspace/utf8-text';
import { WorkspaceFiles } from '../workspace/workspace-files';
import { findRipgrep, searchBuiltin, searchWithRipgrep } from './search';
import { Trash } from './trash';

export interface WorkspaceToolOptions {
  /** The app's data folder: never written by tools, and home of the trash. */
  readonly dataDir: string;
  /** ripgrep's path; `undefined` looks for it, `null` uses the built-in search. */
  readonly ripgrep?: string | null;
  readonly newId: () => string;
  readonly now: () => number;
  /** How names are opened without following links; the platform's best by default (tests choose one). */
  readonly folderAccess?: FolderAccess;
}

const limits = {
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
const relativePathSchema = z.string().min(1).max(1024);

function workspaceOf(context: { workspacePath: string | null }): string {
  if (!context.workspacePath)
    throw new WorkbenchError('no_workspace', 'This session has no workspace folder: ask the person to choose one.');
  return context.workspacePath;
}

/** "1 line", "12 lines": how many lines a text has. */
function lineCount(text: string): string {
  let count = text === '' || text.endsWith('\n') ? 0 : 1;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count += 1;
  return count === 1 ? '1 line' : `${count} lines`;
}

/** The change a write makes, as a unified diff; an old file that is not UTF-8 text (null) is not shown. */
function unifiedDiff(relativePath: string, before: string | null, after: string): string {
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
function linksNote(relativePath: string, links: number, replaced: boolean): string {
  if (links <= 1) return '';
  return replaced
    ? `\n[… ${relativePath} had ${links} hard links; it was replaced by a new file, so its other names keep the old content …]`
    : `\n[… ${relativePath} has ${links} hard links: another name, perhaps outside the workspace, shares this content and changes with it …]`;
}

function replaceExact(text: string, oldText: string, newText: string, replaceAll: boolean, path: string): string {
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

/** The built-in file tools: list, read, search, write, edit and delete, all inside the workspace. */
export function workspaceTools(options: WorkspaceToolOptions): Tool[] {
  const ripgrep = options.ripgrep === undefined ? findRipgrep() : options.ripgrep;
  const protectedRoots = [options.dataDir];
  const trash = new Trash(join(options.dataDir, 'trash'), protectedRoots);
  const filesOf = (context: { workspacePath: string | null }) =>
    new WorkspaceFiles(workspaceOf(context), { protectedRoots, ...(options.folderAccess ? { access: options.folderAccess } : {}) });

  const listFiles = defineTool({
    name: 'list_files',
    description:
      'Lists files and folders in the workspace (folders end with /), honouring .gitignore. Optionally filter with a glob such as "src/**/*.ts".',
    input: z
      .object({ path: relativePathSchema.default('.'), glob: z.string().max(500).optional(), includeIgnored: z.boolean().default(false) })
      .strict(),
    risk: 'read_only',
    summarize: (input) => `${input.path}${input.glob ? ` ${input.glob}` : ''}`,
    execute: async (input, context: ToolContext) => {
      const files = filesOf(context);
      const start = files.inspect(input.path);
      if (start.kind !== 'directory') throw new WorkbenchError('invalid_input', `${input.path} is not a folder.`);
      const matcher = input.glob ? picomatch(input.glob, { dot: true, basename: !input.glob.includes('/') }) : null;
      const reader = files.reader();
      let walked: Awaited<ReturnType<typeof walk>>;
      try {
        walked = await walk({
          start: start.relative === '.' ? reader.root : join(reader.root, start.relative),
          root: reader.root,
          reader,
          includeIgnored: input.includeIgnored,
          maxEntries: matcher ? 200_000 : limits.listEntries,
          signal: context.signal,
        });
      } finally {
        reader.close();
      }
      const { entries, truncated } = walked;
      const shown = (matcher ? entries.filter((entry) => !entry.directory && matcher(entry.path)) : entries).slice(0, limits.listEntries);
      const more = truncated || shown.length === limits.listEntries;
      if (shown.length === 0) return { output: 'No files match.' };
      return {
        output: `${shown.map((entry) => entry.path).join('\n')}${more ? `\n[… listing stopped at ${limits.listEntries} entries; narrow it with path or glob …]` : ''}`,
      };
    },
  });

  const readFileTool = defineTool({
    name: 'read_file',
    description:
      'Reads a text file of the workspace, whole or lines startLine..endLine (1-based, inclusive). Large files need a line range.',
    input: z
      .object({ path: relativePathSchema, startLine: z.number().int().min(1).optional(), endLine: z.number().int().min(1).optional() })
      .strict(),
    risk: 'read_only',
    summarize: (input) =>
      `${input.path}${input.startLine || input.endLine ? ` lines ${input.startLine ?? 1}-${input.endLine ?? '…'}` : ''}`,
    execute: async (input, context) => {
      return filesOf(context).withFile(input.path, async (file) => {
        const note = linksNote(file.relative, file.links, false);
        if (looksBinaryFd(file.fd))
          return { output: `${file.relative} is a binary file (${file.size} bytes); it is not shown.${note}`, isError: true };
        if (input.startLine === undefined && input.endLine === undefined) {
          if (file.size > limits.wholeFileBytes)
            return {
              output: `${file.relative} has ${file.size} bytes; read it in parts with startLine and endLine.${note}`,
              isError: true,
            };
          const text = readAllSync(file.fd, limits.wholeFileBytes).toString('utf8');
          if (Buffer.byteLength(text) <= limits.readBytes) return { output: `${text}${note}` };
          return {
            output: `${Buffer.from(text).subarray(0, limits.readBytes).toString('utf8')}\n[… stopped after ${limits.readBytes} bytes of ${file.size}; read the rest with startLine and endLine …]${note}`,
          };
        }
        const start = input.startLine ?? 1;
        const end = input.endLine ?? start + 499;
        if (end < start) throw new WorkbenchError('invalid_input', 'endLine is before startLine.');
        const { lines, total } = await readLinesFromFd(file.fd, start, Math.min(end, start + 4999));
        const header = `${file.relative} lines ${start}-${start + lines.length - 1}${total !== null ? ` of ${total}` : ''}`;
        return { output: `${header}\n${lines.join('\n')}${note}` };
      });
    },
  });

  const search = defineTool({
    name: 'search',
    description: 'Searches file contents of the workspace with a regular expression; answers path:line:text. Honours .gitignore.',
    input: z
      .object({
        pattern: z.string().min(1).max(1000),
        path: relativePathSchema.default('.'),
        glob: z.string().max(500).optional(),
        caseSensitive: z.boolean().default(false),
        maxResults: z.number().int().min(1).max(1000).default(limits.searchResults),
      })
      .strict(),
    risk: 'read_only',
    summarize: (input) => `/${input.pattern}/ in ${input.path}${input.glob ? ` (${input.glob})` : ''}`,
    execute: async (input, context) => {
      const files = filesOf(context);
      const start = files.inspect(input.path);
      if (start.kind === 'missing') throw new WorkbenchError('invalid_input', `${input.path} does not exist.`);
      const reader = files.reader();
      let result: Awaited<ReturnType<typeof searchBuiltin>>;
      try {
        const searchOptions = {
          root: reader.root,
          start: start.relative === '.' ? reader.root : join(reader.root, start.relative),
          startIsFile: start.kind === 'file',
          reader,
          pattern: input.pattern,
          caseSensitive: input.caseSensitive,
          maxResults: input.maxResults,
          signal: context.signal,
          ...(input.glob ? { glob: input.glob } : {}),
        };
        result = ripgrep ? await searchWithRipgrep(ripgrep, searchOptions) : await searchBuiltin(searchOptions);
      } finally {
        reader.close();
      }
      if (result.matches.length === 0) return { output: 'No matches.' };
      return { output: `${result.matches.join('\n')}${result.truncated ? `\n[… stopped at ${input.maxResults} matches …]` : ''}` };
    },
  });

  const writeFileTool = defineTool({
    name: 'write_file',
    description: 'Creates or replaces a text file in the workspace with the given content. Prefer edit_file to change part of a file.',
    input: z.object({ path: relativePathSchema, content: z.string().max(limits.writeBytes) }).strict(),
    risk: 'write_low',
    summarize: (input) => `${input.path} (${input.content.length} characters)`,
    preview: async (input, context) => {
      const current = filesOf(context).currentText(input.path, limits.previewBytes);
      if (current.tooLarge)
        return `[… the old ${current.relative} has ${current.size} bytes, too many to show; the new text (${lineCount(input.content)}) replaces it whole …]`;
      return unifiedDiff(current.relative, current.text, input.content);
    },
    execute: async (input, context) => {
      const done = filesOf(context).replace(input.path, () => input.content, { replacesWhole: true });
      return {
        output: `${done.created ? 'Created' : 'Replaced'} ${done.relative}.\n${unifiedDiff(done.relative, done.before, done.after)}${linksNote(done.relative, done.links, true)}`,
      };
    },
  });

  const editFile = defineTool({
    name: 'edit_file',
    description:
      'Replaces oldText with newText in a workspace file. oldText must match exactly once (whitespace included) unless replaceAll is true.',
    input: z
      .object({
        path: relativePathSchema,
        oldText: z.string().max(limits.writeBytes),
        newText: z.string().max(limits.writeBytes),
        replaceAll: z.boolean().default(false),
      })
      .strict(),
    risk: 'write_low',
    summarize: (input) => input.path,
    preview: async (input, context) => {
      const current = filesOf(context).currentText(input.path, limits.previewBytes);
      if (current.tooLarge) return `[… ${current.relative} has ${current.size} bytes, too many to preview the edit …]`;
      if (current.text === null) throw notUtf8Error(current.relative);
      return unifiedDiff(
        current.relative,
        current.text,
        replaceExact(current.text, input.oldText, input.newText, input.replaceAll, current.relative),
      );
    },
    execute: async (input, context) => {
      const done = filesOf(context).replace(input.path, (before, relativePath) => {
        if (before === null) throw new WorkbenchError('invalid_input', `${input.path} does not exist; use write_file to create it.`);
        return replaceExact(before, input.oldText, input.newText, input.replaceAll, relativePath);
      });
      return {
        output: `Edited ${done.relative}.\n${unifiedDiff(done.relative, done.before, done.after)}${linksNote(done.relative, done.links, true)}`,
      };
    },
  });

  const deleteTool = defineTool({
    name: 'delete',
    description: "Deletes a file or folder of the workspace by moving it to the app's trash, from where the person can restore it.",
    input: z.object({ path: relativePathSchema }).strict(),
    risk: 'write_high',
    summarize: (input) => input.path,
    execute: async (input, context) => {
      const entry = await trash.put(filesOf(context), input.path, {
        id: options.newId(),
        workspacePath: workspaceOf(context),
        now: options.now(),
      });
      return { output: `Moved ${entry.relativePath}${entry.directory ? '/' : ''} to the trash (entry ${entry.id}); it can be restored.` };
    },
  });

  return [listFiles, readFileTool, search, writeFileTool, editFile, deleteTool];
}
