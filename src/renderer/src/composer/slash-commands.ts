/*
 * The message box's `/` commands: the list of them, and the reading of what was typed as a command, a message, or a
 * refusal.
 */

import type { Autonomy } from '../../../shared/domain';

/** The composer's commands, as `/` lists them. */
export interface SlashCommand {
  readonly name: 'compact' | 'clear' | 'model' | 'autonomy' | 'export';
  readonly usage: string;
  readonly summary: string;
}

/** Every command, in the order `/` lists them. */
export const slashCommands: readonly SlashCommand[] = [
  { name: 'compact', usage: '/compact [what to keep]', summary: 'Summarize the conversation so far, to free room in the model’s window' },
  { name: 'clear', usage: '/clear', summary: 'Start a fresh session in the same folder, on the same model' },
  { name: 'model', usage: '/model <name>', summary: 'Switch to another model of this endpoint' },
  { name: 'autonomy', usage: '/autonomy L0|L1|L2|L3', summary: 'Set how much the agent does without asking' },
  { name: 'export', usage: '/export', summary: 'Save this session as a file' },
];

/** What the text in the composer asks for. */
export type ComposerInput =
  | { readonly kind: 'message'; readonly text: string }
  | { readonly kind: 'compact'; readonly instructions: string }
  | { readonly kind: 'clear' }
  | { readonly kind: 'export' }
  | { readonly kind: 'model'; readonly model: string }
  | { readonly kind: 'autonomy'; readonly autonomy: Autonomy }
  /** Not something that can run: the reason, in words. Nothing is sent. */
  | { readonly kind: 'refused'; readonly reason: string };

const commandPattern = /^\/([A-Za-z]+)(?:\s+([\s\S]*))?$/;

/**
 * Reads the composer's text. `/name` followed by nothing or a space is a command; anything else is a message, so a path
 * such as `/etc/hosts is empty` is sent as written. `//` at the start sends a message that begins with `/`.
 */
export function readComposerText(raw: string): ComposerInput {
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
    default:
      return {
        kind: 'refused',
        reason: `There is no command /${name}. Commands: ${slashCommands.map((command) => `/${command.name}`).join(', ')}. To send a message that starts with “/”, begin it with “//”.`,
      };
  }
}

/** The commands to list while a command's name is being typed (`/`, `/co`, …); none once a space follows. */
export function commandsFor(raw: string): readonly SlashCommand[] {
  const match = /^\/([A-Za-z]*)$/.exec(raw.trimStart());
  if (!match) return [];
  const typed = (match[1] ?? '').toLowerCase();
  return slashCommands.filter((command) => command.name.startsWith(typed));
}
