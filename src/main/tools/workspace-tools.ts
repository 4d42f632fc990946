import { createReadStream } from 'node:fs';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { createTwoFilesPatch } from 'diff';
import picomatch from 'picomatch';
import { z } from 'zod';
import { WorkbenchError } from '../../shared/errors';
import { defineTool, type Tool, type ToolContext } from '../agent/tools';
import { resolveWorkspacePath, type ResolvedPath } from '../workspace/workspace-paths';
import { looksBinary, walk } from '../workspace/file-walk';
import { findRipgrep, searchBuiltin, searchWithRipgrep } from './search';
import { Trash } from './trash';

export interface WorkspaceToolOptions {
  /** The app's data folder: never written by tools, and home of the trash. */
  readonly dataDir: string;
  /** ripgrep's path; `undefined` looks for it, `null` uses the built-in search. */
  readonly ripgrep?: string | null;
  readonly newId: () => string;
  readonly now: () => number;
}

const limits = {
  readBytes: 256 * 1024,
  wholeFileBytes: 2 * 1024 * 1024,
  writeBytes: 5 * 1024 * 1024,
  listEntries: 2000,
  searchResults: 200,
} as const;
const relativePathSchema = z.string().min(1).max(1024);

function workspaceOf(context: { workspacePath: string | null }): string {
  if (!context.workspacePath)
    throw new WorkbenchError('no_workspace', 'This session has no workspace folder: ask the person to choose one.');
  return context.workspacePath;
}

async function readLines(path: string, start: number, end: number): Promise<{ lines: string[]; total: number | null }> {
  const lines: string[] = [];
  const reader = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  let number = 0;
  for await (const line of reader) {
    number += 1;
    if (number >= start && number <= end) lines.push(line);
    if (number > end) {
      reader.close();
      return { lines, total: null };
    }
  }
  return { lines, total: number };
}

function unifiedDiff(relativePath: string, before: string, after: string): string {
  return createTwoFilesPatch(`a/${relativePath}`, `b/${relativePath}`, before, after, undefined, undefined, { context: 3 }).replace(
    /^=+\n/m,
    '',
  );
}

async function currentText(resolved: ResolvedPath): Promise<string> {
  if (resolved.kind === 'missing') return '';
  if (resolved.kind !== 'file') throw new WorkbenchError('invalid_input', `${resolved.relative} is a folder, not a file.`);
  return readFile(resolved.absolute, 'utf8');
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
  const trash = new Trash(join(options.dataDir, 'trash'));
  const protectedRoots = [options.dataDir];
  const forRead = (context: { workspacePath: string | null }, path: string) =>
    resolveWorkspacePath(workspaceOf(context), path, { forWrite: false });
  const forWrite = (context: { workspacePath: string | null }, path: string) =>
    resolveWorkspacePath(workspaceOf(context), path, { forWrite: true, protectedRoots });

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
      const resolved = await forRead(context, input.path);
      if (resolved.kind !== 'directory') throw new WorkbenchError('invalid_input', `${input.path} is not a folder.`);
      const root = await resolveWorkspacePath(workspaceOf(context), '.', { forWrite: false });
      const matcher = input.glob ? picomatch(input.glob, { dot: true, basename: !input.glob.includes('/') }) : null;
      const { entries, truncated } = await walk({
        start: resolved.absolute,
        root: root.absolute,
        includeIgnored: input.includeIgnored,
        maxEntries: matcher ? 200_000 : limits.listEntries,
        signal: context.signal,
      });
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
      const resolved = await forRead(context, input.path);
      if (resolved.kind !== 'file')
        throw new WorkbenchError(
          'invalid_input',
          resolved.kind === 'missing' ? `${input.path} does not exist.` : `${input.path} is a folder; use list_files.`,
        );
      const { size } = await stat(resolved.absolute);
      if (await looksBinary(resolved.absolute))
        return { output: `${resolved.relative} is a binary file (${size} bytes); it is not shown.`, isError: true };
      if (input.startLine === undefined && input.endLine === undefined) {
        if (size > limits.wholeFileBytes)
          return { output: `${resolved.relative} has ${size} bytes; read it in parts with startLine and endLine.`, isError: true };
        const text = await readFile(resolved.absolute, 'utf8');
        if (Buffer.byteLength(text) <= limits.readBytes) return { output: text };
        return {
          output: `${Buffer.from(text).subarray(0, limits.readBytes).toString('utf8')}\n[… stopped after ${limits.readBytes} bytes of ${size}; read the rest with startLine and endLine …]`,
        };
      }
      const start = input.startLine ?? 1;
      const end = input.endLine ?? start + 499;
      if (end < start) throw new WorkbenchError('invalid_input', 'endLine is before startLine.');
      const { lines, total } = await readLines(resolved.absolute, start, Math.min(end, start + 4999));
      const header = `${resolved.relative} lines ${start}-${start + lines.length - 1}${total !== null ? ` of ${total}` : ''}`;
      return { output: `${header}\n${lines.join('\n')}` };
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
      const resolved = await forRead(context, input.path);
      const root = await resolveWorkspacePath(workspaceOf(context), '.', { forWrite: false });
      const searchOptions = {
        root: root.absolute,
        start: resolved.absolute,
        pattern: input.pattern,
        caseSensitive: input.caseSensitive,
        maxResults: input.maxResults,
        signal: context.signal,
        ...(input.glob ? { glob: input.glob } : {}),
      };
      const result = ripgrep ? await searchWithRipgrep(ripgrep, searchOptions) : await searchBuiltin(searchOptions);
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
      const resolved = await forWrite(context, input.path);
      return unifiedDiff(resolved.relative, await currentText(resolved), input.content);
    },
    execute: async (input, context) => {
      const resolved = await forWrite(context, input.path);
      if (resolved.kind === 'directory') throw new WorkbenchError('invalid_input', `${input.path} is a folder.`);
      const before = await currentText(resolved);
      await mkdir(dirname(resolved.absolute), { recursive: true });
      await writeFile(resolved.absolute, input.content, 'utf8');
      return {
        output: `${resolved.kind === 'missing' ? 'Created' : 'Replaced'} ${resolved.relative}.\n${unifiedDiff(resolved.relative, before, input.content)}`,
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
      const resolved = await forWrite(context, input.path);
      const before = await currentText(resolved);
      return unifiedDiff(
        resolved.relative,
        before,
        replaceExact(before, input.oldText, input.newText, input.replaceAll, resolved.relative),
      );
    },
    execute: async (input, context) => {
      const resolved = await forWrite(context, input.path);
      if (resolved.kind !== 'file') throw new WorkbenchError('invalid_input', `${input.path} does not exist; use write_file to create it.`);
      const before = await readFile(resolved.absolute, 'utf8');
      const after = replaceExact(before, input.oldText, input.newText, input.replaceAll, resolved.relative);
      await writeFile(resolved.absolute, after, 'utf8');
      return { output: `Edited ${resolved.relative}.\n${unifiedDiff(resolved.relative, before, after)}` };
    },
  });

  const deleteTool = defineTool({
    name: 'delete',
    description: "Deletes a file or folder of the workspace by moving it to the app's trash, from where the person can restore it.",
    input: z.object({ path: relativePathSchema }).strict(),
    risk: 'write_high',
    summarize: (input) => input.path,
    execute: async (input, context) => {
      const resolved = await forWrite(context, input.path);
      if (resolved.kind === 'missing') throw new WorkbenchError('invalid_input', `${input.path} does not exist.`);
      const entry = await trash.put({
        id: options.newId(),
        absolute: resolved.absolute,
        workspacePath: workspaceOf(context),
        relativePath: resolved.relative,
        now: options.now(),
      });
      return { output: `Moved ${resolved.relative}${entry.directory ? '/' : ''} to the trash (entry ${entry.id}); it can be restored.` };
    },
  });

  return [listFiles, readFileTool, search, writeFileTool, editFile, deleteTool];
}
