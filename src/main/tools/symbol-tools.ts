/*
 * The symbol tools: a file's outline, where a name is defined, and where it is used, from the workspace's code index
 * (tree-sitter tags), in bounded pages.
 */

import { z } from 'zod';
import { counted } from '../../shared/counts';
import { WorkbenchError } from '../../shared/errors';
import { defineTool, type Tool, type ToolContext } from '../agent/ports/tools';
import type { CodeIndex, PlacedTag } from '../code-map/code-index';
import type { CodeMaps } from '../code-map/code-maps';
import { languageOf } from '../code-map/languages';
import { relativePathSchema, workspaceOf, type FilesOf } from './file-tool-kit';

/** Lines in one page of a tool's answer. */
const pageLines = { outline: 150, symbols: 40 } as const;

const pageSchema = z.number().int().min(1).max(10_000).default(1);
const nameSchema = z.string().trim().min(1, 'Name the symbol: the name is empty.').max(200);
const definitionTypeSchema = z.enum(['function', 'method', 'class', 'interface', 'type', 'module']);

/** One page of lines, with a line that says where the page is and how to get the next. */
function paged(head: string, lines: readonly string[], page: number, size: number): string {
  const pages = Math.max(1, Math.ceil(lines.length / size));
  if (page > pages) return `${head}\nThere is no page ${page}: there ${pages === 1 ? 'is 1 page' : `are ${pages} pages`}.`;
  const shown = lines.slice((page - 1) * size, page * size);
  const more =
    page < pages ? `\n[page ${page} of ${pages}; ask for page ${page + 1} for more]` : pages > 1 ? `\n[page ${page} of ${pages}]` : '';
  return `${head}\n${shown.join('\n')}${more}`;
}

const placeOf = (tag: PlacedTag): string => `${tag.path}:${tag.line}`;

/** "3 definitions of Square:", saying so when the name matched only in another letter case. */
function headOf(found: readonly PlacedTag[], asked: string, noun: string): string {
  const spellings = [...new Set(found.map((tag) => tag.name))];
  const named = spellings.includes(asked) ? asked : `${spellings.join(', ')} (no exact match for ${asked}; these differ in letter case)`;
  return `${counted(found.length, noun)} of ${named}:`;
}

/** The index of the call's workspace, brought up to the files on disk first; its progress is the call's output. */
async function currentIndex(maps: CodeMaps, context: ToolContext): Promise<{ index: CodeIndex; notes: readonly string[] }> {
  const index = maps.of(workspaceOf(context));
  let told = 0;
  const refreshed = await index.refresh(context.signal, (done, total) => {
    // A first index of a large tree says how far it is, every 500 files.
    if (total < 500 || done - told < 500) return;
    told = done;
    context.emitOutput(`Indexing the workspace's code: ${done} of ${total} files…\n`);
  });
  const notes = [...refreshed.notes, ...(refreshed.truncated ? [`Only the first ${refreshed.files} source files are indexed.`] : [])];
  return { index, notes };
}

const withNotes = (text: string, notes: readonly string[]): string => (notes.length === 0 ? text : `${text}\n\n${notes.join('\n')}`);

/** outline: a file's definitions with their lines. */
export function outlineTool(filesOf: FilesOf, maps: CodeMaps): Tool {
  return defineTool({
    name: 'outline',
    description:
      "Lists a source file's definitions (classes, functions, methods, types) with their line numbers and first lines, " +
      'without reading the whole file. Then read_file with startLine and endLine reads just the part you need.',
    input: z.object({ path: relativePathSchema, page: pageSchema }).strict(),
    risk: 'read_only',
    summarize: (input) => input.path,
    execute: async (input, context) => {
      const place = filesOf(context).inspect(input.path);
      if (place.kind === 'directory') throw new WorkbenchError('invalid_input', `${input.path} is a folder; outline reads one file.`);
      if (place.kind === 'missing') throw new WorkbenchError('invalid_input', `${input.path} does not exist.`);
      if (!languageOf(place.relative))
        throw new WorkbenchError('invalid_input', `${place.relative} is not a source file the outline reads; use read_file.`);
      const index = maps.of(workspaceOf(context));
      await index.update([place.relative]);
      const tags = index.outline(place.relative);
      if (tags === null)
        return { output: `${place.relative} could not be read as source (binary, too large, or not a plain file).`, isError: true };
      const broken = index.hasParseErrors(place.relative)
        ? '\n[the file has syntax errors where it could not be read: the outline may miss definitions there]'
        : '';
      if (tags.length === 0) return { output: `${place.relative} defines nothing the outline recognizes; use read_file.${broken}` };
      const lines = tags.map((tag) => `${`${tag.line}-${tag.endLine}`.padStart(11)}  ${tag.defines}  ${tag.text}`);
      return {
        output: `${paged(
          `${place.relative}: ${counted(tags.length, 'definition')} (lines, kind, first line)`,
          lines,
          input.page,
          pageLines.outline,
        )}${broken}`,
      };
    },
  });
}

/** find_symbol: where a name is defined, over the workspace. */
export function findSymbolTool(maps: CodeMaps): Tool {
  return defineTool({
    name: 'find_symbol',
    description:
      'Finds where a name (class, function, method, type) is defined in the workspace, with file, line and first line. ' +
      'Optionally only one kind. Faster and smaller than searching the text.',
    input: z.object({ name: nameSchema, kind: definitionTypeSchema.optional(), page: pageSchema }).strict(),
    risk: 'read_only',
    summarize: (input) => `${input.name}${input.kind ? ` (${input.kind})` : ''}`,
    execute: async (input, context) => {
      const { index, notes } = await currentIndex(maps, context);
      const found = index.definitions(input.name, input.kind);
      if (found.length === 0) {
        // Asked for one kind: say whether the name is defined as another.
        const other = input.kind ? index.definitions(input.name) : [];
        const kinds = [...new Set(other.map((tag) => tag.defines))];
        const like = index.similarNames(input.name, 10);
        const hint =
          kinds.length > 0
            ? ` It is defined as a ${kinds.join(', a ')}: ask without kind.`
            : like.length > 0
              ? ` Names like it: ${like.join(', ')}.`
              : '';
        return {
          output: withNotes(
            `No definition of ${input.name}${input.kind ? ` as a ${input.kind}` : ''} in the ${index.size} source files indexed.${hint}`,
            notes,
          ),
        };
      }
      const lines = found.map((tag) => `${placeOf(tag)}  ${tag.defines}  ${tag.text}`);
      return { output: withNotes(paged(headOf(found, input.name, 'definition'), lines, input.page, pageLines.symbols), notes) };
    },
  });
}

/** find_references: where a name is used (called, constructed, named as a type), over the workspace. */
export function findReferencesTool(maps: CodeMaps): Tool {
  return defineTool({
    name: 'find_references',
    description:
      'Finds where a name is used in the workspace (calls, constructions, type uses), with file, line and the line itself. ' +
      'Matched by name, so another symbol of the same name is listed too.',
    input: z.object({ name: nameSchema, page: pageSchema }).strict(),
    risk: 'read_only',
    summarize: (input) => input.name,
    execute: async (input, context) => {
      const { index, notes } = await currentIndex(maps, context);
      // A line that uses the name twice (`a.then(then)`) is one place to look at: listed and counted once.
      const seenLines = new Set<string>();
      const found = index.references(input.name).filter((tag) => {
        const place = placeOf(tag);
        if (seenLines.has(place)) return false;
        seenLines.add(place);
        return true;
      });
      if (found.length === 0)
        return { output: withNotes(`No use of ${input.name} found in the ${index.size} source files indexed.`, notes) };
      const lines = found.map((tag) => `${placeOf(tag)}  ${tag.text}`);
      const files = new Set(found.map((tag) => tag.path)).size;
      return {
        output: withNotes(
          paged(`${headOf(found, input.name, 'use').slice(0, -1)} in ${counted(files, 'file')}:`, lines, input.page, pageLines.symbols),
          notes,
        ),
      };
    },
  });
}

/** The three symbol tools over one set of code indexes. */
export function symbolTools(filesOf: FilesOf, maps: CodeMaps): Tool[] {
  return [outlineTool(filesOf, maps), findSymbolTool(maps), findReferencesTool(maps)];
}
