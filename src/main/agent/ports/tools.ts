/*
 * Declared tools, and the registry of those the runtime offers the model.
 */
import { z } from 'zod';
import type { Escalation, GrantPattern, RiskLevel } from '../../../shared/domain';
import type { ToolSpec } from './model-provider';

/** What a tool sees while it runs. */
export interface ToolContext {
  readonly signal: AbortSignal;
  readonly sessionId: string;
  readonly toolCallId: string;
  readonly workspacePath: string | null;
  /** Streams output as it is produced (shell output, progress); it is batched per frame on its way out. */
  emitOutput(text: string): void;
}

export interface ToolOutcome {
  readonly output: string;
  readonly isError?: boolean;
  /** A failure that may pass if the call is made again (a server that dropped the connection): a read-only call is retried. */
  readonly transient?: boolean;
}

/** The risk of one call: the tool's base level, raised by its arguments; `refused` is a built-in denial. */
export interface RiskAssessment {
  readonly level: RiskLevel;
  readonly reason: string;
  readonly refused?: string;
  /**
   * What the call asks for beyond what the tool may do by default (a command with the network, or outside the OS
   * sandbox). Such a call always waits at a gate, whatever the autonomy, unless the person trusted that escalation
   * explicitly; a grant made at an ordinary gate never covers it.
   */
  readonly escalation?: Escalation;
}

/** A tool as the runtime uses it: input arrives unparsed and is parsed by the tool's own schema. */
export interface Tool {
  readonly name: string;
  readonly description: string;
  /** Where the tool comes from (an MCP server's name); built-in when absent. */
  readonly group?: string;
  /**
   * The one workspace folder whose sessions are offered this tool (a tool of that folder's own MCP server), as those
   * sessions name their folder; every session's when absent.
   */
  readonly workspace?: string;
  readonly baseRisk: RiskLevel;
  /**
   * A call the app stopped in the middle of runs again when its turn resumes, instead of failing as "may have partly
   * run": its `execute` picks up what the first run started (a sub-agent goes on where it was).
   */
  readonly resumable?: boolean;
  /** See `ToolSpec.optional`: on a small window, listed in the catalogue rather than defined. */
  readonly optional?: boolean;
  /**
   * Whether this call may change the workspace's files though its risk is read-only (a sub-agent that may write, each
   * of its writes asked for at its own gate): its files are saved before and after it, as for any writing call, so
   * Changes, restores and their undo cover what it did. Calls that are not read-only always are.
   */
  changesFiles?(input: unknown): boolean;
  /** The text field of the input the person may change at the call's gate before approving it (a write's content). */
  readonly editableField?: string;
  readonly inputJsonSchema: Record<string, unknown>;
  parse(raw: unknown): { ok: true; input: unknown } | { ok: false; message: string };
  assess(input: unknown, context: { workspacePath: string | null }): RiskAssessment;
  /** The pattern a trust grant for this call covers. */
  trustPattern(input: unknown): GrantPattern;
  /** The pattern of this call's own arguments and nothing wider, as `covers` reads it: what a grant for an escalation covers. */
  exactPattern(input: unknown): GrantPattern;
  /** Whether a grant's pattern covers this call; a folder pattern is matched where the call's path leads, links followed. */
  covers(pattern: GrantPattern, input: unknown, context: { workspacePath: string | null }): boolean;
  /**
   * The folders a grant for this call may cover instead of its own pattern, innermost first and the whole workspace
   * (``) last: those holding the one workspace path the call acts on, where it leads with links followed. Empty for a
   * tool that acts on no one path, or on one that cannot be found inside the workspace.
   */
  grantFolders(input: unknown, context: { workspacePath: string | null }): string[];
  /** One line for people: what this call does. */
  summarize(input: unknown): string;
  /** What the call would change, shown before it runs (a unified diff for file writes), or null. */
  preview(input: unknown, context: { workspacePath: string | null }): Promise<string | null>;
  /**
   * Why the call would fail as it stands, before it changes anything (an edit whose text is not in the file, a write
   * that changes nothing), in the words its failure would have; null when it may run. Asked before a gate opens, so
   * the person is never asked about a call that cannot do anything.
   */
  check?(input: unknown, context: { workspacePath: string | null }): Promise<string | null>;
  execute(input: unknown, context: ToolContext): Promise<ToolOutcome>;
}

export interface ToolDeclaration<S extends z.ZodType> {
  readonly name: string;
  readonly description: string;
  readonly input: S;
  readonly risk: RiskLevel;
  /** See `Tool.resumable`. */
  readonly resumable?: boolean;
  /** See `Tool.optional`. */
  readonly optional?: boolean;
  /** See `Tool.changesFiles`. */
  readonly changesFiles?: (input: z.output<S>) => boolean;
  /** See `Tool.editableField`: a string field of the input. */
  readonly editableField?: string;
  /** Raises the risk from the arguments, or refuses the call; the base level is used without it. */
  readonly assess?: (input: z.output<S>, context: { workspacePath: string | null }) => RiskAssessment;
  /** A pattern wider than the exact arguments; it must never cover more than the approved call could do. */
  readonly trustPattern?: (input: z.output<S>) => GrantPattern;
  readonly covers?: (pattern: GrantPattern, input: z.output<S>) => boolean;
  /** The `exact` pattern of these arguments as `covers` reads it; the canonical JSON of the input unless said. */
  readonly exactPattern?: (input: z.output<S>) => GrantPattern;
  /**
   * The one workspace path the call acts on, for grants that cover a folder: where it leads, links inside the workspace
   * followed, so that a grant for `src/` never reaches through a link in it to another folder. Throws when it leads
   * nowhere the call could act (no folder grant then covers it).
   */
  readonly pathOf?: (input: z.output<S>, context: { workspacePath: string | null }) => string;
  readonly summarize?: (input: z.output<S>) => string;
  readonly preview?: (input: z.output<S>, context: { workspacePath: string | null }) => Promise<string | null>;
  /** Throws the error `execute` would fail with, when it can be known before running (see `Tool.check`). */
  readonly check?: (input: z.output<S>, context: { workspacePath: string | null }) => Promise<void>;
  readonly execute: (input: z.output<S>, context: ToolContext) => Promise<ToolOutcome>;
}

/**
 * A path as the workspace holds it, relative and with `.` and `..` worked out; null for one that is absolute or leaves
 * the workspace, which no folder grant covers.
 */
export function workspaceRelative(path: string): string | null {
  if (path === '' || path.startsWith('/') || path.startsWith('\\') || /^[a-zA-Z]:/.test(path)) return null;
  const parts: string[] = [];
  for (const part of path.replace(/\\/g, '/').split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length === 0) return null;
      parts.pop();
    } else parts.push(part);
  }
  return parts.length === 0 ? null : parts.join('/');
}

/** The folders holding a relative path, innermost first, ending with the whole workspace (``): `a/b/c.ts` → `a/b/`, `a/`, ``. */
export function foldersHolding(path: string): string[] {
  const parts = path.split('/').slice(0, -1);
  const folders: string[] = [];
  for (let length = parts.length; length > 0; length -= 1) folders.push(`${parts.slice(0, length).join('/')}/`);
  return [...folders, ''];
}

/** JSON with keys sorted, so equal arguments always give the same text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, inner]) => inner !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonicalJson(inner)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Declares a tool: a name, a zod input, a base risk and `execute`. The runtime parses input before `execute` sees it. */
export function defineTool<S extends z.ZodType>(declaration: ToolDeclaration<S>): Tool {
  type Input = z.output<S>;
  const exact = (input: unknown): GrantPattern => ({ kind: 'exact', arguments: canonicalJson(input) });
  const placeOf = (input: Input, context: { workspacePath: string | null }): string | null => {
    if (!declaration.pathOf) return null;
    try {
      return workspaceRelative(declaration.pathOf(input, context));
    } catch {
      return null;
    }
  };
  return {
    name: declaration.name,
    description: declaration.description,
    baseRisk: declaration.risk,
    ...(declaration.resumable ? { resumable: true } : {}),
    ...(declaration.optional ? { optional: true } : {}),
    ...(declaration.changesFiles ? { changesFiles: (input: unknown) => declaration.changesFiles?.(input as Input) ?? false } : {}),
    ...(declaration.editableField === undefined ? {} : { editableField: declaration.editableField }),
    inputJsonSchema: z.toJSONSchema(declaration.input, { io: 'input' }) as Record<string, unknown>,
    parse(raw) {
      const parsed = declaration.input.safeParse(raw);
      if (parsed.success) return { ok: true, input: parsed.data };
      const issues = parsed.error.issues
        .slice(0, 3)
        .map((issue) => (issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ${issue.message}` : issue.message));
      return { ok: false, message: `Invalid input for ${declaration.name}: ${issues.join('; ')}` };
    },
    assess: (input, context) =>
      declaration.assess?.(input as Input, context) ?? {
        level: declaration.risk,
        reason: `${declaration.name} is ${declaration.risk.replace('_', '-')}`,
      },
    trustPattern: (input) => declaration.trustPattern?.(input as Input) ?? exact(input),
    exactPattern: (input) => declaration.exactPattern?.(input as Input) ?? exact(input),
    covers: (pattern, input, context) => {
      if (pattern.kind === 'path_prefix') {
        const path = placeOf(input as Input, context);
        return path !== null && path.startsWith(pattern.folder);
      }
      if (declaration.covers) return declaration.covers(pattern, input as Input);
      return pattern.kind === 'exact' && pattern.arguments === canonicalJson(input);
    },
    grantFolders: (input, context) => {
      const path = placeOf(input as Input, context);
      return path === null ? [] : foldersHolding(path);
    },
    summarize: (input) => declaration.summarize?.(input as Input) ?? canonicalJson(input).slice(0, 200),
    preview: async (input, context) => {
      if (!declaration.preview) return null;
      try {
        return await declaration.preview(input as Input, context);
      } catch (error) {
        // A preview that cannot be made (a refused path, text not found) is shown as such; the call will fail the same way.
        return `(no preview: ${error instanceof Error ? error.message : String(error)})`;
      }
    },
    check: async (input, context) => {
      if (!declaration.check) return null;
      try {
        await declaration.check(input as Input, context);
        return null;
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      }
    },
    execute: (input, context) => declaration.execute(input as Input, context),
  };
}

/**
 * Tools a workspace folder brings of its own (the MCP servers a trusted folder configures): made ready before a turn in
 * that folder asks the model, so their tools are in its first request.
 */
export interface WorkspaceToolSource {
  /** Starts what the folder brings, if it may; resolves once its tools are in the registry or could not be had. Never throws. */
  prepare(workspacePath: string, signal: AbortSignal): Promise<void>;
}

/**
 * The tools a runtime offers: those of every session, and those of one workspace folder (see `Tool.workspace`), which
 * only that folder's sessions see. A folder's tool never hides one of every session's of the same name.
 */
export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();
  /** Tools of one folder each, by the folder's path as its sessions name it. */
  private readonly folders = new Map<string, Map<string, Tool>>();
  /** Tools a model can call but is not offered by default (`describe_tools`). */
  private readonly hidden = new Map<string, Tool>();
  /**
   * The definitions last given, kept while no tool came or went and the same tools are denied in the same folder: every
   * request of a turn carries them, and the context budget measures them by identity.
   */
  private lastSpecs: { key: string; specs: readonly ToolSpec[] } | null = null;

  constructor(tools: readonly Tool[] = []) {
    for (const tool of tools) this.register(tool);
  }

  register(tool: Tool): () => void {
    const folder = tool.workspace;
    const tools = folder === undefined ? this.tools : (this.folders.get(folder) ?? new Map<string, Tool>());
    if (tools.has(tool.name)) throw new Error(`A tool named ${tool.name} is already registered.`);
    tools.set(tool.name, tool);
    if (folder !== undefined) this.folders.set(folder, tools);
    this.lastSpecs = null;
    return () => {
      this.lastSpecs = null;
      if (tools.get(tool.name) !== tool) return false;
      tools.delete(tool.name);
      if (folder !== undefined && tools.size === 0 && this.folders.get(folder) === tools) this.folders.delete(folder);
      return true;
    };
  }

  /** A tool that can be called but is not listed; a second one of the same name is ignored. */
  registerHidden(tool: Tool): void {
    if (!this.hidden.has(tool.name)) this.hidden.set(tool.name, tool);
  }

  /** The tool of this name a session in this folder (none: a session without one) can call. */
  get(name: string, workspacePath: string | null = null): Tool | undefined {
    return (
      this.tools.get(name) ?? (workspacePath === null ? undefined : this.folders.get(workspacePath)?.get(name)) ?? this.hidden.get(name)
    );
  }

  /** Whether a tool of every session (listed or not) has this name: a folder's tool of the same name would be hidden by it. */
  takenEverywhere(name: string): boolean {
    return this.tools.has(name) || this.hidden.has(name);
  }

  /** The listed tools of a session in this folder (none: a session without one): every session's, then the folder's. */
  list(workspacePath: string | null = null): Tool[] {
    const own = workspacePath === null ? undefined : this.folders.get(workspacePath);
    const everywhere = [...this.tools.values()];
    return own ? [...everywhere, ...[...own.values()].filter((tool) => !this.tools.has(tool.name))] : everywhere;
  }

  /** Every folder's own listed tools (those a tool of every session hides left out), by the folder's path. */
  byFolder(): Array<{ folder: string; tools: Tool[] }> {
    return [...this.folders]
      .map(([folder, tools]) => ({ folder, tools: [...tools.values()].filter((tool) => !this.tools.has(tool.name)) }))
      .filter(({ tools }) => tools.length > 0);
  }

  /** The tools a model is offered: every listed one but those the person denied (a call to one is still refused). */
  offered(denied: readonly string[] = [], workspacePath: string | null = null): Tool[] {
    const listed = this.list(workspacePath);
    return denied.length === 0 ? listed : listed.filter((tool) => !denied.includes(tool.name));
  }

  /** The definitions a request carries, for the tools offered. */
  specs(denied: readonly string[] = [], workspacePath: string | null = null): readonly ToolSpec[] {
    const key = `${workspacePath ?? ''}\u0001${denied.join('\u0000')}`;
    if (this.lastSpecs?.key === key) return this.lastSpecs.specs;
    const specs = this.offered(denied, workspacePath).map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputJsonSchema,
      ...(tool.group === undefined ? {} : { group: tool.group }),
      readOnly: tool.baseRisk === 'read_only',
      ...(tool.optional ? { optional: true } : {}),
    }));
    this.lastSpecs = { key, specs };
    return specs;
  }
}
