/*
 * The system prompt of each model call, with the memories relevant to the latest message, and the record of what
 * was sent.
 */
import type { Autonomy } from '../../../shared/domain';
import type { AssembledPrompt, Memory, PromptPart } from '../../../shared/prompt';
import type { Clock } from '../ports/clock';
import { isMessage, type ConversationEntry } from './context-view';
import type { MemoryStore } from '../ports/memory';
import type { ToolSpec } from '../ports/model-provider';
import {
  assembleSystemPrompt,
  localDate,
  screened,
  type AssembleInput,
  type InstructionSet,
  type PromptEnvironment,
} from './system-prompt';

/** Where the parts of a system prompt come from that the agent layer cannot read itself. */
export interface PromptSources {
  /** The project's instruction files, nearest first; never throws (what cannot be read is a note). */
  instructions(workspacePath: string): Promise<InstructionSet>;
  environment(): PromptEnvironment;
}

/** The system prompts that were sent, each kept once: a model call names its own by id. */
export interface PromptRecords {
  /** Keeps a prompt (once, however often it is sent) and returns its id. */
  save(prompt: AssembledPrompt): string;
  get(id: string): AssembledPrompt | null;
}

/** The instructions of a turn with no profile: the agent's role, in its own words. */
export const defaultInstructions = [
  'You are a careful assistant working with a person on a folder of their own.',
  'Read before you change: look at the files involved first, then make the smallest change that does what was asked.',
  'Use the tools when they help, say what you did and why, and ask when you are not sure what the person wants. Answer in Markdown.',
].join(' ');

export interface SystemPromptsOptions {
  /** The name and instructions of a turn with no profile; "Default" with `defaultInstructions` when absent. */
  readonly profile?: () => { readonly name: string; readonly instructions: string };
  readonly sources?: PromptSources;
  readonly memory?: MemoryStore;
  readonly records?: PromptRecords;
  readonly clock: Clock;
}

/** None: one list, so a prompt with none compares equal to the last one (`sameAssembly` compares memories by identity). */
const noMemories: Memory[] = [];

/** At most this many memories are considered for a prompt; the budget takes the most relevant of them. */
const memoriesConsidered = 40;

const unknownEnvironment: PromptEnvironment = { os: 'unknown', shell: 'unknown', sandbox: 'unknown' };

export interface PromptFor {
  /** The turn's profile; the default one when absent. */
  readonly profile?: { readonly name: string; readonly version: number; readonly instructions: string };
  readonly workspacePath: string | null;
  readonly autonomy: Autonomy;
  readonly tools: readonly ToolSpec[] | undefined;
  readonly entries: readonly ConversationEntry[];
  readonly window: number;
  readonly tokens: (chars: number) => number;
  /** When the session began: the prompt gives its date, so the prompt stays the same across days (a later date is told in a message). */
  readonly startedAt?: number;
}

/**
 * The system prompt of each model call, assembled from its parts for the call's window (`assembleSystemPrompt`), with
 * the memories relevant to the person's latest message; and the record of what was sent, so the person can see it.
 */
export class SystemPrompts {
  /**
   * What was retrieved for the last request: every call of a turn answers the same message, so its memories are looked
   * up once, and again only when a memory changed (the agent remembered something, the person edited one).
   */
  private retrieved: { key: string; version: number; memories: Memory[] } | null = null;
  /** The last prompt assembled, with what it was made of and the token counts it asked for. */
  private lastAssembled: { input: AssembleInput; asked: ReadonlyArray<[number, number]>; prompt: AssembledPrompt } | null = null;
  /** The last prompt recorded as sent, with what it was made from. */
  private lastRecord: { assembled: AssembledPrompt; sentSystem: string; tools: string; prompt: AssembledPrompt } | null = null;
  /** Where the person's latest message was in each conversation, and how far it had been looked at: a turn's conversation only grows. */
  private readonly latestSeen = new WeakMap<readonly ConversationEntry[], { length: number; index: number }>();

  constructor(private readonly options: SystemPromptsOptions) {}

  private memoriesFor(workspacePath: string | null, request: string): Memory[] {
    const { memory } = this.options;
    if (!memory || request === '') return noMemories;
    const key = `${workspacePath ?? ''}\u0000${request}`;
    const version = memory.version();
    if (this.retrieved?.key === key && this.retrieved.version === version) return this.retrieved.memories;
    // A memory with the signs of a prompt injection (saved before memories were screened, or by hand) is not recalled.
    const memories = memory.relevant(workspacePath, request, memoriesConsidered).filter((found) => screened(found.text).length === 0);
    this.retrieved = { key, version, memories };
    return memories;
  }

  /**
   * The memories relevant to the person's latest message, for the model to read with that message (not in the system
   * prompt, which then stays the same from turn to turn).
   */
  recall(workspacePath: string | null, entries: readonly ConversationEntry[]): Memory[] {
    return this.memoriesFor(workspacePath, latestRequest(entries, this.latestSeen));
  }

  async assemble(input: PromptFor): Promise<AssembledPrompt> {
    const { sources } = this.options;
    const instructions = sources && input.workspacePath ? await sources.instructions(input.workspacePath) : null;
    // Memories go with the person's message they were recalled for (`recall`): the system prompt has none.
    const memories = noMemories;
    const given: AssembleInput = {
      profile: input.profile
        ? { name: `${input.profile.name} v${input.profile.version}`, instructions: input.profile.instructions }
        : (this.options.profile?.() ?? { name: 'Default', instructions: defaultInstructions }),
      workspacePath: input.workspacePath,
      autonomy: input.autonomy,
      environment: sources?.environment() ?? unknownEnvironment,
      now: input.startedAt ?? this.options.clock.now(),
      tools: (input.tools ?? []).map((tool) => ({
        name: tool.name,
        ...(tool.group === undefined ? {} : { group: tool.group }),
        readOnly: tool.readOnly ?? false,
      })),
      instructions,
      memories,
      window: input.window,
      tokens: input.tokens,
    };
    // The prompt of the call before, when every input is the same and the token counts it asked for are too: the
    // assembly is a function of those, so it would give the same prompt (every call of a turn asks for the same one).
    const last = this.lastAssembled;
    if (last && sameAssembly(last.input, given) && last.asked.every(([chars, tokens]) => input.tokens(chars) === tokens))
      return last.prompt;
    const asked: Array<[number, number]> = [];
    const assembled = assembleSystemPrompt({
      ...given,
      tokens: (chars) => {
        const tokens = input.tokens(chars);
        asked.push([chars, tokens]);
        return tokens;
      },
    });
    const prompt = { ...assembled, tools: (input.tools ?? []).map((tool) => tool.name) };
    this.lastAssembled = { input: given, asked, prompt };
    return prompt;
  }

  /**
   * Keeps the prompt as it was sent: the request's own system text (the prompt builder may have added a catalogue of
   * tools to it) and the tools it carried. Returns the record's id, or null when prompts are not kept.
   */
  record(
    assembled: AssembledPrompt,
    sentSystem: string,
    sentTools: readonly ToolSpec[] | undefined,
    tokens: (chars: number) => number,
  ): string | null {
    const records = this.options.records;
    if (!records) return null;
    // The same prompt sent again is the same object, which the records know without serializing it again.
    const toolNames = (sentTools ?? []).map((tool) => tool.name).join('\u0000');
    const last = this.lastRecord;
    if (
      last &&
      last.assembled === assembled &&
      last.sentSystem === sentSystem &&
      last.tools === toolNames &&
      !last.prompt.parts.some((part) => part.title === 'Catalogue of more tools')
    )
      return records.save(last.prompt);
    const added = sentSystem.startsWith(assembled.text) ? sentSystem.slice(assembled.text.length).trim() : '';
    const parts: PromptPart[] =
      added === ''
        ? assembled.parts
        : [
            ...assembled.parts,
            {
              kind: 'tools',
              title: 'Catalogue of more tools',
              source: 'the tools too large to send whole',
              text: added,
              tokens: tokens(added.length),
              budget: 0,
              cut: false,
            },
          ];
    const prompt = { ...assembled, text: sentSystem, parts, tools: (sentTools ?? []).map((tool) => tool.name) };
    this.lastRecord = { assembled, sentSystem, tools: toolNames, prompt };
    return records.save(prompt);
  }

  get(id: string): AssembledPrompt | null {
    return this.options.records?.get(id) ?? null;
  }
}

/** The person's latest message: what memories are retrieved for. Only the entries added since the last look are searched. */
function latestRequest(
  entries: readonly ConversationEntry[],
  latestSeen: WeakMap<readonly ConversationEntry[], { length: number; index: number }>,
): string {
  const seen = latestSeen.get(entries);
  const from = seen && seen.length <= entries.length ? seen.length : 0;
  let found = from === 0 ? -1 : (seen?.index ?? -1);
  for (let index = entries.length - 1; index >= from; index -= 1) {
    const entry = entries[index];
    if (entry && isMessage(entry) && entry.role === 'user' && entry.recalled !== true) {
      found = index;
      break;
    }
  }
  latestSeen.set(entries, { length: entries.length, index: found });
  const entry = found < 0 ? undefined : entries[found];
  return entry && isMessage(entry) && entry.role === 'user' ? entry.content.slice(0, 4_000) : '';
}

/** Whether two assemblies have the same inputs, but for the token counts (compared by what was asked). */
function sameAssembly(a: AssembleInput, b: AssembleInput): boolean {
  return (
    a.profile.name === b.profile.name &&
    a.profile.instructions === b.profile.instructions &&
    a.workspacePath === b.workspacePath &&
    a.autonomy === b.autonomy &&
    a.environment.os === b.environment.os &&
    a.environment.shell === b.environment.shell &&
    a.environment.sandbox === b.environment.sandbox &&
    a.window === b.window &&
    a.memories === b.memories &&
    localDate(a.now) === localDate(b.now) &&
    a.tools.length === b.tools.length &&
    a.tools.every((tool, index) => {
      const other = b.tools[index];
      return other !== undefined && tool.name === other.name && tool.group === other.group && tool.readOnly === other.readOnly;
    }) &&
    sameInstructions(a.instructions, b.instructions)
  );
}

function sameInstructions(a: InstructionSet | null, b: InstructionSet | null): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  return (
    a.files.length === b.files.length &&
    a.notes.length === b.notes.length &&
    a.notes.every((note, index) => note === b.notes[index]) &&
    a.files.every((file, index) => {
      const other = b.files[index];
      return (
        other !== undefined &&
        file.path === other.path &&
        file.text === other.text &&
        file.scope === other.scope &&
        file.released === other.released
      );
    })
  );
}
