/*
 * The person's own `/` commands, read from Markdown files (`.agents/commands/*.md`, `.claude/commands/*.md`, and the
 * app's data folder): their shape as main lists them, the names the built-in commands keep, and a command's prompt with
 * what was typed after it put in.
 */

import { z } from 'zod';

/** The names of the built-in commands: a file of the same name is left out, and the person is told why. */
export const builtInCommandNames = ['compact', 'clear', 'model', 'autonomy', 'export', 'help', 'init'] as const;
export type BuiltInCommandName = (typeof builtInCommandNames)[number];

/** A command's name as it is typed after `/`: a letter, then letters, digits, `-` or `_`. Compared in lower case. */
export const commandNamePattern = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/** The most of a command file that is read: a larger one is left out, with a note. */
export const commandFileLimitBytes = 32 * 1024;
/** The most command files read from one folder. */
export const commandFilesPerFolder = 200;

/** Where a command comes from: the workspace (its `.agents/commands` or `.claude/commands`), or the app's data folder. */
export const commandSourceSchema = z.enum(['workspace', 'data']);
export type CommandSource = z.infer<typeof commandSourceSchema>;

export const customCommandSchema = z.object({
  /** In lower case, without the `/`. */
  name: z.string().regex(commandNamePattern),
  /** From the front matter's `description:`, else the prompt's first line. */
  description: z.string().max(300),
  /** From the front matter's `argument-hint:`, e.g. `<file> [focus]`; empty when none. */
  argumentHint: z.string().max(200),
  /** The prompt, with `$ARGUMENTS`, `$1`, `$2`… still in it. */
  prompt: z.string().min(1).max(commandFileLimitBytes),
  source: commandSourceSchema,
  /** Where the file is: relative to the workspace (`.agents/commands/review.md`), or its whole path in the data folder. */
  path: z.string().max(4_096),
});
export type CustomCommand = z.infer<typeof customCommandSchema>;

/** The commands of a session's workspace and of the data folder, with a note for each file left out and why. */
export const customCommandListSchema = z.object({
  commands: z.array(customCommandSchema),
  notes: z.array(z.string()),
  /** The instruction files at the workspace's root (`AGENTS.md`, `CLAUDE.md`…), which `/init` builds on; null without a workspace. */
  instructionFiles: z.array(z.string()).nullable(),
});
export type CustomCommandList = z.infer<typeof customCommandListSchema>;

/** Where a command comes from, in words, for the `/` list and `/help`. */
export function sourceLabel(command: Pick<CustomCommand, 'source' | 'path'>): string {
  if (command.source === 'data') return 'every workspace';
  return command.path.startsWith('.claude/') ? 'this workspace (.claude)' : 'this workspace';
}

/**
 * The words of what follows a command, as `$1`, `$2`… take them: split at white space, with a part in double or single
 * quotes kept as one word (without its quotes).
 */
export function commandWords(argumentsText: string): string[] {
  const words: string[] = [];
  for (const match of argumentsText.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) words.push(match[1] ?? match[2] ?? match[3] ?? '');
  return words;
}

/**
 * A command's prompt with what followed the command put in: `$ARGUMENTS` becomes all of it, `$1`, `$2`… its words (an
 * absent word becomes nothing). Replaced in one pass, so an argument that itself holds `$1` stays as typed. A prompt
 * with no placeholder at all still gets what was typed, after it, so nothing typed is dropped without a word.
 */
export function expandCommandPrompt(prompt: string, argumentsText: string): string {
  const given = argumentsText.trim();
  const words = commandWords(given);
  let placed = false;
  const expanded = prompt.replace(/\$ARGUMENTS|\$([1-9][0-9]*)/g, (_whole, index: string | undefined) => {
    placed = true;
    return index === undefined ? given : (words[Number(index) - 1] ?? '');
  });
  if (placed || given === '') return expanded.trim();
  return `${expanded.trim()}\n\nArguments: ${given}`;
}
