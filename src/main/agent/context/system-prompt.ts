/*
 * The system prompt's parts (profile, environment, project instructions, memory, tools), each within its share of
 * the window.
 */
import { BoundedMap } from '../../../shared/bounded-map';
import type { Autonomy } from '../../../shared/domain';
import type { AssembledPrompt, Memory, PromptPart, PromptPartKind } from '../../../shared/prompt';
import { toolGroupLabel, toolGroupOf, type ToolGroup } from '../../../shared/tool-groups';
import type { InjectionSign } from '../../../shared/guardrails';
import { detectInjectionSigns } from '../rules/injection-signs';

/** An instruction file of the project, as read: its path as shown, and its text (empty when it was skipped, with why in `notes`). */
export interface InstructionFile {
  /** Relative to the workspace (`AGENTS.md`, `src/AGENTS.md`), or `../AGENTS.md` for a folder above it. */
  readonly path: string;
  readonly text: string;
  /** Where it applies, when not to the whole workspace: `files under src/`. */
  readonly scope?: string;
  /** The person read it and let the model have it as it is, though it carries signs of a prompt injection. */
  readonly released?: boolean;
}

export interface InstructionSet {
  /** Nearest first: the workspace's own, then the folders above it, then those of its subfolders. */
  readonly files: readonly InstructionFile[];
  /** Files found and not used, and why (too large, binary, unreadable). */
  readonly notes: readonly string[];
}

/** What the model is told of the machine it works on. */
export interface PromptEnvironment {
  readonly os: string;
  readonly shell: string;
  /** One sentence: whether commands run in a sandbox, and what it allows. */
  readonly sandbox: string;
}

export interface AssembleInput {
  readonly profile: { readonly name: string; readonly instructions: string };
  readonly workspacePath: string | null;
  readonly autonomy: Autonomy;
  readonly environment: PromptEnvironment;
  /** Local time now, in milliseconds. */
  readonly now: number;
  readonly tools: ReadonlyArray<{ readonly name: string; readonly group?: string; readonly readOnly: boolean }>;
  readonly instructions: InstructionSet | null;
  /** The memories relevant to the request, the most relevant first. */
  readonly memories: readonly Memory[];
  /** The window of the model the prompt is for, in tokens. */
  readonly window: number;
  /** Tokens of so many characters, by the model's ratio. */
  readonly tokens: (chars: number) => number;
}

/**
 * The most each kind of part may take of a window: a share of it, and never more than a fixed figure, so a small
 * window keeps most of its room for the conversation and a large one is not filled with instructions.
 */
const shares: Readonly<Record<PromptPartKind, { readonly share: number; readonly most: number }>> = {
  profile: { share: 0.08, most: 4_000 },
  environment: { share: 0.05, most: 500 },
  tools: { share: 0.04, most: 800 },
  instructions: { share: 0.12, most: 8_000 },
  memory: { share: 0.04, most: 2_000 },
};

/** The budget of each kind of part for a window. A small window's shares are smaller (half of them at 8,192 tokens or less), so the conversation keeps room. */
export function promptBudgets(window: number): Record<PromptPartKind, number> {
  const scale = Math.min(1, Math.max(0.5, window / 16_384));
  const of = (kind: PromptPartKind): number => Math.min(shares[kind].most, Math.floor(window * shares[kind].share * scale));
  return {
    profile: of('profile'),
    environment: of('environment'),
    tools: of('tools'),
    instructions: of('instructions'),
    memory: of('memory'),
  };
}

/** A part too small to say anything useful is left out rather than cut to a few words. */
const smallestUseful = 40;

const autonomyMeaning: Readonly<Record<Autonomy, string>> = {
  L0: 'L0 observe: every tool call waits for the person to approve it.',
  L1: 'L1 recommend: read-only calls run at once; every change to files and every command that writes waits for the person to approve it.',
  L2: 'L2 assisted: reading and low-risk changes run at once; high-risk changes wait for the person to approve them.',
  L3: 'L3 supervised: everything but destructive actions runs at once; destructive ones always wait for the person.',
};

/** `text` within `budget` tokens: whole when it fits, else cut at a line where it can be, with a marker saying so. */
export function fitText(text: string, budget: number, tokens: (chars: number) => number): { text: string; tokens: number; cut: boolean } {
  const whole = tokens(text.length);
  if (whole <= budget) return { text, tokens: whole, cut: false };
  const marker = (kept: number): string => `\n[… cut to fit: ${text.length - kept} of ${text.length} characters left out]`;
  let chars = Math.max(0, Math.floor((text.length * budget) / whole) - 80);
  while (chars > 0 && tokens(chars + marker(chars).length) > budget) chars = Math.floor(chars * 0.9);
  const line = text.lastIndexOf('\n', chars);
  const kept = line > chars * 0.8 ? line : chars;
  const cut = `${text.slice(0, kept)}${marker(kept)}`;
  return { text: cut, tokens: tokens(cut.length), cut: true };
}

const weekdays = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;

/** The local date, `2026-11-23`; with its weekday, `2026-11-23 (Monday)`. Plain arithmetic: a locale formatter per call costs more than the rest of the prompt. */
export const localDate = (now: number, withWeekday = true): string => {
  const date = new Date(now);
  const pad = (value: number): string => String(value).padStart(2, '0');
  const day = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  return withWeekday ? `${day} (${weekdays[date.getDay()] ?? ''})` : day;
};

function environmentText(input: AssembleInput): string {
  const { workspacePath, environment } = input;
  return [
    workspacePath
      ? `- Workspace: ${workspacePath}. Tool paths are relative to it; commands run in it.`
      : '- Workspace: none. No folder is open, so file and shell tools cannot be used; say so if the request needs them.',
    `- Operating system: ${environment.os}`,
    `- Shell: ${environment.shell}`,
    `- Date: ${localDate(input.now)}`,
    `- Sandbox: ${environment.sandbox}`,
    `- Autonomy: ${autonomyMeaning[input.autonomy]} A call the person denies comes back as denied: do not repeat it unchanged.`,
  ].join('\n');
}

function toolsText(tools: AssembleInput['tools']): string {
  if (tools.length === 0) return 'No tools are offered in this session: answer from what you know and what the person tells you.';
  const groups = new Map<ToolGroup, string[]>();
  for (const tool of tools) {
    const group = toolGroupOf(tool);
    groups.set(group, [...(groups.get(group) ?? []), tool.name]);
  }
  return [...groups].map(([group, names]) => `- ${toolGroupLabel(group)}: ${names.join(', ')}`).join('\n');
}

const memoryOrigin = (memory: Memory): string => {
  const when = localDate(memory.updatedAt, false);
  const where = memory.scope === 'global' ? 'every workspace' : 'this workspace';
  return memory.source === 'person'
    ? `added by the person on ${when}, for ${where}`
    : `remembered by the agent on ${when}${memory.sessionId ? ` in session ${memory.sessionId}` : ''}, for ${where}`;
};

/** What screening found in texts seen lately: the same files and memories go into every call's prompt. */
const screenedTexts = new BoundedMap<string, readonly InjectionSign[]>({ max: 200 });

/**
 * The signs of a prompt injection in a text given to the model with the prompt (an instruction file, a memory), each
 * text screened once. Such a text is written to instruct the model, so words addressed to it are no sign here; hidden
 * text, encoded payloads, asking it to ignore the person or to send data away are.
 */
export function screened(text: string): readonly InjectionSign[] {
  const known = screenedTexts.get(text);
  if (known) return known;
  const signs = detectInjectionSigns(text).filter((sign) => sign.kind !== 'instructions_to_model');
  screenedTexts.set(text, signs);
  return signs;
}

/** The signs found, in a few words each: the first three. */
function signsWords(signs: readonly InjectionSign[]): string {
  return signs
    .slice(0, 3)
    .map((sign) => sign.explanation.replace(/\.$/, ''))
    .join('; ');
}

/**
 * The system prompt of one model call, from the profile, the environment, the tools by group, the project's
 * instruction files (nearest first) and the memories relevant to the request, each part within its budget of the
 * window. What did not fit or could not be read is listed in `notes`, so the prompt view can say why it is missing.
 */
export function assembleSystemPrompt(input: AssembleInput): Omit<AssembledPrompt, 'tools'> {
  const budgets = promptBudgets(input.window);
  const parts: PromptPart[] = [];
  const notes: string[] = [...(input.instructions?.notes ?? [])];
  const part = (kind: PromptPartKind, title: string, source: string, text: string, budget: number): PromptPart => {
    const fitted = fitText(text, budget, input.tokens);
    const made = { kind, title, source, text: fitted.text, tokens: fitted.tokens, budget: budgets[kind], cut: fitted.cut };
    parts.push(made);
    return made;
  };
  part('profile', input.profile.name, `the profile ${input.profile.name}`, input.profile.instructions.trim(), budgets.profile);
  part(
    'environment',
    'Workspace, system, shell, date, sandbox, autonomy',
    'this computer and the session',
    environmentText(input),
    budgets.environment,
  );
  const groups = new Set(input.tools.map((tool) => toolGroupOf(tool))).size;
  const toolsTitle = `${input.tools.length} ${input.tools.length === 1 ? 'tool' : 'tools'} in ${groups} ${groups === 1 ? 'group' : 'groups'}`;
  part('tools', toolsTitle, 'the tools offered with the request', toolsText(input.tools), budgets.tools);

  let left = budgets.instructions;
  for (const file of input.instructions?.files ?? []) {
    if (file.text.trim() === '') continue;
    // Screened whole, as a tool's result is: one with the signs of a prompt injection is not given to the model.
    const signs = file.released ? [] : screened(file.text);
    if (signs.length > 0) {
      notes.push(
        `${file.path} was left out: it carries signs of a prompt injection (${signsWords(signs)}). Read it; the bar above the conversation lets the model have it.`,
      );
      continue;
    }
    if (left < smallestUseful) {
      notes.push(`${file.path} was left out: the instructions took their whole budget of ${budgets.instructions} tokens.`);
      continue;
    }
    const made = part('instructions', file.scope ? `${file.path} (${file.scope})` : file.path, file.path, file.text.trim(), left);
    left -= made.tokens;
    if (made.cut) notes.push(`${file.path} was cut to fit the instructions' budget of ${budgets.instructions} tokens.`);
  }

  left = budgets.memory;
  let leftOut = 0;
  for (const memory of input.memories) {
    const signs = screened(memory.text);
    if (signs.length > 0) {
      notes.push(`A memory was left out: it carries signs of a prompt injection (${signsWords(signs)}). See it in the Memory panel.`);
      continue;
    }
    const cost = input.tokens(memory.text.length + 3);
    if (cost > left) {
      leftOut += 1;
      continue;
    }
    left -= cost;
    parts.push({
      kind: 'memory',
      title: memory.text.length > 60 ? `${memory.text.slice(0, 59)}…` : memory.text,
      source: memoryOrigin(memory),
      text: memory.text,
      tokens: cost,
      budget: budgets.memory,
      cut: false,
    });
  }
  if (leftOut > 0)
    notes.push(`${leftOut} relevant ${leftOut === 1 ? 'memory was' : 'memories were'} left out: no room in the memory budget.`);
  return { format: 1, text: render(parts), parts, notes, window: input.window };
}

/** The prompt's text: the profile's instructions, then one section per kind of part. */
function render(parts: readonly PromptPart[]): string {
  const of = (kind: PromptPartKind): PromptPart[] => parts.filter((candidate) => candidate.kind === kind);
  const sections = of('profile').map((profile) => profile.text);
  for (const environment of of('environment')) sections.push(`# Environment\n${environment.text}`);
  for (const tools of of('tools')) sections.push(`# Tools by group\n${tools.text}`);
  const instructions = of('instructions');
  if (instructions.length > 0)
    sections.push(
      [
        "# Project instructions\nThe person's instruction files for this project, nearest first: where two disagree, the nearer one wins.",
        ...instructions.map((file) => `## ${file.title}\n${file.text}`),
      ].join('\n\n'),
    );
  const memories = of('memory');
  if (memories.length > 0)
    sections.push(
      [
        '# Memory\nFacts saved in earlier sessions, by the person or by you with `remember`. Use them where they help; they may be out of date.',
        ...memories.map((memory) => `- ${memory.text.replace(/\n+/g, ' ')}`),
      ].join('\n'),
    );
  return sections.filter((section) => section.trim() !== '').join('\n\n');
}
