/*
 * The message box's `/` commands: the list of them (built-in, then the person's own from command files), and the
 * reading of what was typed as a command, a message, or a refusal.
 */

import type { Autonomy } from '../../../shared/domain';
import { sourceLabel, type BuiltInCommandName, type CustomCommand } from '../../../shared/custom-commands';

/** The composer's built-in commands, as `/` lists them. */
export interface SlashCommand {
  readonly name: BuiltInCommandName;
  readonly usage: string;
  readonly summary: string;
}

/** Every built-in command, in the order `/` lists them. */
export const slashCommands: readonly SlashCommand[] = [
  { name: 'compact', usage: '/compact [what to keep]', summary: 'Summarize the conversation so far, to free room in the model’s window' },
  { name: 'clear', usage: '/clear', summary: 'Start a fresh session in the same folder, on the same model' },
  { name: 'model', usage: '/model <name>', summary: 'Switch to another model of this endpoint' },
  { name: 'autonomy', usage: '/autonomy L0|L1|L2|L3', summary: 'Set how much the agent does without asking' },
  { name: 'export', usage: '/export', summary: 'Save this session as a file' },
  { name: 'help', usage: '/help', summary: 'List the commands and the main keyboard shortcuts (the model is not asked)' },
  {
    name: 'init',
    usage: '/init [what to stress]',
    summary: 'Ask the agent to look at the folder and draft AGENTS.md, or improve the one there',
  },
];

/** A command as the `/` list shows it: a built-in one, or one of the person's with where it comes from. */
export interface MenuCommand {
  readonly name: string;
  readonly usage: string;
  readonly summary: string;
  /** Where a command of the person's comes from, in words; null for a built-in one. */
  readonly source: string | null;
}

/** What the text in the composer asks for. */
export type ComposerInput =
  | { readonly kind: 'message'; readonly text: string }
  | { readonly kind: 'compact'; readonly instructions: string }
  | { readonly kind: 'clear' }
  | { readonly kind: 'export' }
  | { readonly kind: 'model'; readonly model: string }
  | { readonly kind: 'autonomy'; readonly autonomy: Autonomy }
  | { readonly kind: 'help' }
  /** Asks the agent for an AGENTS.md, with what the person wants stressed (may be empty). */
  | { readonly kind: 'init'; readonly instructions: string }
  /** One of the person's commands, with what followed it. */
  | { readonly kind: 'custom'; readonly command: CustomCommand; readonly arguments: string }
  /** Not something that can run: the reason, in words. Nothing is sent. */
  | { readonly kind: 'refused'; readonly reason: string };

const commandPattern = /^\/([A-Za-z][A-Za-z0-9_-]*)(?:\s+([\s\S]*))?$/;

/**
 * Reads the composer's text. `/name` followed by nothing or a space is a command (a built-in one, else one of `custom`,
 * the person's own); anything else is a message, so a path such as `/etc/hosts is empty` is sent as written. `//` at
 * the start sends a message that begins with `/`.
 */
export function readComposerText(raw: string, custom: readonly CustomCommand[] = []): ComposerInput {
  const text = raw.trim();
  if (text.startsWith('//')) return { kind: 'message', text: text.slice(1) };
  if (text === '/')
    return { kind: 'refused', reason: 'Pick a command from the list, or begin with “//” to send a message that starts with “/”.' };
  const match = commandPattern.exec(text);
  if (!match) return { kind: 'message', text };
  const name = (match[1] ?? '').toLowerCase();
  const argument = (match[2] ?? '').trim();
  const noArgument = (command: string): ComposerInput | null =>
    argument === '' ? null : { kind: 'refused', reason: `/${command} takes nothing after it.` };
  switch (name) {
    case 'compact':
      return argument.length > 2_000
        ? { kind: 'refused', reason: 'What to keep is too long for /compact (at most 2,000 characters).' }
        : { kind: 'compact', instructions: argument };
    case 'clear':
      return noArgument('clear') ?? { kind: 'clear' };
    case 'export':
      return noArgument('export') ?? { kind: 'export' };
    case 'help':
      return noArgument('help') ?? { kind: 'help' };
    case 'init':
      return argument.length > 2_000
        ? { kind: 'refused', reason: 'What to stress is too long for /init (at most 2,000 characters).' }
        : { kind: 'init', instructions: argument };
    case 'model':
      if (argument === '') return { kind: 'refused', reason: 'Say which model: /model <name>.' };
      if (argument.length > 300 || /\s/.test(argument))
        return { kind: 'refused', reason: `“${argument.slice(0, 60)}” is not a model name.` };
      return { kind: 'model', model: argument };
    case 'autonomy': {
      const level = argument.toUpperCase();
      if (level === 'L0' || level === 'L1' || level === 'L2' || level === 'L3') return { kind: 'autonomy', autonomy: level };
      return { kind: 'refused', reason: 'Say which level: /autonomy L0, L1, L2 or L3.' };
    }
    default: {
      const own = custom.find((command) => command.name === name);
      if (own) return { kind: 'custom', command: own, arguments: argument };
      const names = [...slashCommands, ...custom].map((command) => `/${command.name}`).join(', ');
      return {
        kind: 'refused',
        reason: `There is no command /${name}. Commands: ${names}. To send a message that starts with “/”, begin it with “//”.`,
      };
    }
  }
}

/** A command of the person's as the `/` list shows it. */
export function menuCommandOf(command: CustomCommand): MenuCommand {
  return {
    name: command.name,
    usage: `/${command.name}${command.argumentHint ? ` ${command.argumentHint}` : ''}`,
    summary: command.description,
    source: sourceLabel(command),
  };
}

/**
 * The commands to list while a command's name is being typed (`/`, `/co`, …), the built-in ones first, then the
 * person's own by name; none once a space follows.
 */
export function commandsFor(raw: string, custom: readonly CustomCommand[] = []): readonly MenuCommand[] {
  const match = /^\/([A-Za-z0-9_-]*)$/.exec(raw.trimStart());
  if (!match) return [];
  const typed = (match[1] ?? '').toLowerCase();
  const builtIn = slashCommands.map((command): MenuCommand => ({ ...command, source: null }));
  const own = [...custom].sort((a, b) => a.name.localeCompare(b.name)).map(menuCommandOf);
  return [...builtIn, ...own].filter((command) => command.name.startsWith(typed));
}
