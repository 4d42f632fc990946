/*
 * The file tools that change the workspace: write_file, edit_file and delete, each declared by a function of its own.
 * Writes show their change as a diff, before (the preview at a gate) and after.
 */

import { z } from 'zod';
import { WorkbenchError } from '../../shared/errors';
import { defineTool, type Tool } from '../agent/ports/tools';
import { notUtf8Error } from '../workspace/utf8-text';
import { limits, lineCount, linksNote, relativePathSchema, replaceExact, unifiedDiff, workspaceOf, type FilesOf } from './file-tool-kit';
import type { Trash } from './trash';
import type { WorkspaceFiles } from '../workspace/workspace-files';

/** The error of a write that would leave the file as it is: nothing to write, and the model is told so. */
function unchangedError(relative: string): WorkbenchError {
  return new WorkbenchError('invalid_input', `${relative} already holds exactly this text: there is nothing to write.`);
}

/**
 * Throws `unchangedError` when the file at `path` holds `content` already. A file too large to read whole is not
 * checked, nor one that cannot be read here: the write itself says why it cannot be made.
 */
function checkChanges(files: WorkspaceFiles, path: string, content: string): void {
  let current: ReturnType<WorkspaceFiles['currentText']>;
  try {
    current = files.currentText(path, limits.previewBytes);
  } catch {
    return;
  }
  if (current.kind === 'file' && !current.tooLarge && current.text === content) throw unchangedError(current.relative);
}

/**
 * The text an edit leaves, checked as the edit itself checks it: the file must exist as UTF-8 text, oldText must be
 * found (once, or replaceAll), and the result must differ from the file.
 */
function editedText(before: string | null, input: EditInput, relativePath: string): string {
  if (before === null) throw new WorkbenchError('invalid_input', `${input.path} does not exist; use write_file to create it.`);
  const after = replaceExact(before, input.oldText, input.newText, input.replaceAll, relativePath);
  if (after === before)
    throw new WorkbenchError('invalid_input', `newText is the same as oldText: the edit would change nothing in ${relativePath}.`);
  return after;
}

const editInputSchema = z
  .object({
    path: relativePathSchema,
    oldText: z.string().max(limits.writeBytes),
    newText: z.string().max(limits.writeBytes),
    replaceAll: z.boolean().default(false),
  })
  .strict();
type EditInput = z.output<typeof editInputSchema>;

/** write_file: creates or replaces a text file whole. */
export function writeFileTool(filesOf: FilesOf): Tool {
  return defineTool({
    name: 'write_file',
    description: 'Creates or replaces a text file in the workspace with the given content. Prefer edit_file to change part of a file.',
    input: z.object({ path: relativePathSchema, content: z.string().max(limits.writeBytes) }).strict(),
    risk: 'write_low',
    editableField: 'content',
    summarize: (input) => `${input.path} (${input.content.length} characters)`,
    pathOf: (input, context) => filesOf(context).placeOf(input.path, 'write'),
    preview: async (input, context) => {
      const current = filesOf(context).currentText(input.path, limits.previewBytes);
      if (current.tooLarge)
        return `[… the old ${current.relative} has ${current.size} bytes, too many to show; the new text (${lineCount(input.content)}) replaces it whole …]`;
      return unifiedDiff(current.relative, current.text, input.content);
    },
    check: async (input, context) => checkChanges(filesOf(context), input.path, input.content),
    execute: async (input, context) => {
      const files = filesOf(context);
      checkChanges(files, input.path, input.content);
      const done = files.replace(input.path, () => input.content, { replacesWhole: true });
      return {
        output: `${done.created ? 'Created' : 'Replaced'} ${done.relative}.\n${unifiedDiff(done.relative, done.before, done.after)}${linksNote(done.relative, done.links, true)}`,
      };
    },
  });
}

/** edit_file: replaces an exact text in a file, once or everywhere. */
export function editFileTool(filesOf: FilesOf): Tool {
  return defineTool({
    name: 'edit_file',
    description:
      'Replaces oldText with newText in a workspace file. oldText must match exactly once (whitespace included) unless replaceAll is true.',
    input: editInputSchema,
    risk: 'write_low',
    editableField: 'newText',
    summarize: (input) => input.path,
    pathOf: (input, context) => filesOf(context).placeOf(input.path, 'write'),
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
    check: async (input, context) => {
      const current = filesOf(context).currentText(input.path, limits.previewBytes);
      // Too large to read here: the edit itself reads it whole, and says.
      if (current.tooLarge) return;
      if (current.text === null) throw notUtf8Error(current.relative);
      editedText(current.kind === 'file' ? current.text : null, input, current.relative);
    },
    execute: async (input, context) => {
      const done = filesOf(context).replace(input.path, (before, relativePath) => editedText(before, input, relativePath));
      return {
        output: `Edited ${done.relative}.\n${unifiedDiff(done.relative, done.before, done.after)}${linksNote(done.relative, done.links, true)}`,
      };
    },
  });
}

/** delete: moves a file or folder to the app's trash, from where it can be restored. */
export function deleteTool(filesOf: FilesOf, trash: Trash, ids: { newId: () => string; now: () => number }): Tool {
  return defineTool({
    name: 'delete',
    description: "Deletes a file or folder of the workspace by moving it to the app's trash, from where the person can restore it.",
    input: z.object({ path: relativePathSchema }).strict(),
    risk: 'write_high',
    summarize: (input) => input.path,
    pathOf: (input, context) => filesOf(context).placeOf(input.path, 'remove'),
    execute: async (input, context) => {
      const entry = await trash.put(filesOf(context), input.path, {
        id: ids.newId(),
        workspacePath: workspaceOf(context),
        now: ids.now(),
      });
      return { output: `Moved ${entry.relativePath}${entry.directory ? '/' : ''} to the trash (entry ${entry.id}); it can be restored.` };
    },
  });
}
