/* The file tools that only read: list_files, read_file and search, each declared by a function of its own. */

import { join } from 'node:path';
import picomatch from 'picomatch';
import { z } from 'zod';
import { WorkbenchError } from '../../shared/errors';
import { defineTool, type Tool, type ToolContext } from '../agent/ports/tools';
import { looksBinaryFd, readAllSync, readLinesFromFd } from '../workspace/fd-read';
import { walk } from '../workspace/file-walk';
import { limits, linksNote, relativePathSchema, type FilesOf } from './file-tool-kit';
import { searchBuiltin, searchWithRipgrep } from './search';

/** list_files: the workspace's files and folders (folders end with /), honouring .gitignore, filtered by a glob. */
export function listFilesTool(filesOf: FilesOf): Tool {
  return defineTool({
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
}

/** read_file: a text file whole, or a range of its lines. */
export function readFileTool(filesOf: FilesOf): Tool {
  return defineTool({
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
}

/** search: file contents by a regular expression, with ripgrep when there is one (`null`: the built-in search). */
export function searchTool(filesOf: FilesOf, ripgrep: string | null): Tool {
  return defineTool({
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
}
