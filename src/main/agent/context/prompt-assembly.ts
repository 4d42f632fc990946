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
import { assembleSystemPrompt, type InstructionSet, type PromptEnvironment } from './system-prompt';

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

  constructor(private readonly options: SystemPromptsOptions) {}

  private memoriesFor(workspacePath: string | null, request: string): Memory[] {
    const { memory } = this.options;
    if (!memory || request === '') return [];
    const key = `${workspacePath ?? ''}\u0000${request}`;
    const version = memory.version();
    if (this.retrieved?.key === key && this.retrieved.version === version) return this.retrieved.memories;
    const memories = memory.relevant(workspacePath, request, memoriesConsidered);
    this.retrieved = { key, version, memories };
    return memories;
  }

  async assemble(input: PromptFor): Promise<AssembledPrompt> {
    const { sources } = this.options;
    const instructions = sources && input.workspacePath ? await sources.instructions(input.workspacePath) : null;
    const memories = this.memoriesFor(input.workspacePath, latestRequest(input.entries));
    const assembled = assembleSystemPrompt({
      profile: input.profile
        ? { name: `${input.profile.name} v${input.profile.version}`, instructions: input.profile.instructions }
        : (this.options.profile?.() ?? { name: 'Default', instructions: defaultInstructions }),
      workspacePath: input.workspacePath,
      autonomy: input.autonomy,
      environment: sources?.environment() ?? unknownEnvironment,
      now: this.options.clock.now(),
      tools: (input.tools ?? []).map((tool) => ({
        name: tool.name,
        ...(tool.group === undefined ? {} : { group: tool.group }),
        readOnly: tool.readOnly ?? false,
      })),
      instructions,
      memories,
      window: input.window,
      tokens: input.tokens,
    });
    return { ...assembled, tools: (input.tools ?? []).map((tool) => tool.name) };
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
    return records.save({ ...assembled, text: sentSystem, parts, tools: (sentTools ?? []).map((tool) => tool.name) });
  }

  get(id: string): AssembledPrompt | null {
    return this.options.records?.get(id) ?? null;
  }
}

/** The person's latest message: what memories are retrieved for. */
function latestRequest(entries: readonly ConversationEntry[]): string {
  for (let index = entries.length - 1; index >= 0; index -= 1) {
    const entry = entries[index];
    if (entry && isMessage(entry) && entry.role === 'user') return entry.content.slice(0, 4_000);
  }
  return '';
}
