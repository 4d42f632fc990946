/*
 * The tool catalogue: on a small window, the tools' names and summaries in place of their definitions, and the
 * tool that describes one.
 */
import { z } from 'zod';
import type { ConversationEntry } from './context-view';
import type { ToolSpec } from '../ports/model-provider';
import { charsOfTools } from './token-count';
import { defineTool, type Tool } from '../ports/tools';

/**
 * When the tools' definitions would take too much of a small window (many MCP servers on a small model), the model gets
 * the definitions of the built-in tools and of those it asked about, a short catalogue of the rest grouped by server and
 * by what they do, and `describe_tools` to ask for the definitions it needs: they come with the next request.
 */

/** The share of the window the tool definitions and the catalogue may take together. */
export const toolShare = 0.2;
export const describeToolsName = 'describe_tools';
const builtInGroup = 'built-in';

const describeInput = z
  .object({
    names: z.array(z.string().min(1).max(200)).max(20).optional().describe('Names of tools whose definitions you need'),
    server: z.string().min(1).max(200).optional().describe('A server whose tools to list'),
  })
  .refine((input) => (input.names?.length ?? 0) > 0 || input.server !== undefined, 'give the names of tools, or a server');

const firstSentence = (text: string): string => {
  const line = text.trim().split('\n')[0] ?? '';
  const sentence = /^.*?[.!?](?=\s|$)/.exec(line)?.[0] ?? line;
  return sentence.length > 100 ? `${sentence.slice(0, 99)}…` : sentence;
};

const definition = (tool: Pick<Tool, 'name' | 'description' | 'inputJsonSchema'>): string =>
  `## ${tool.name}\n${tool.description.trim()}\nArguments (JSON Schema): ${JSON.stringify(tool.inputJsonSchema)}`;

/**
 * The tool that gives a model the definitions of tools from the catalogue, or lists a server's tools: those a session in
 * its folder is offered (a folder's own servers' tools only there).
 */
export function describeToolsTool(lookup: {
  get(name: string, workspacePath: string | null): Tool | undefined;
  list(workspacePath: string | null): readonly Tool[];
}): Tool {
  return defineTool({
    name: describeToolsName,
    description:
      'Gives the full definitions of tools listed in the catalogue of more tools, so you can call them; or lists the tools of one server.',
    input: describeInput,
    risk: 'read_only',
    summarize: (input) => `describe ${input.names?.join(', ') ?? `the tools of ${input.server ?? ''}`}`,
    execute: async (input, { workspacePath }) => {
      const parts: string[] = [];
      for (const name of input.names ?? []) {
        const tool = name === describeToolsName ? undefined : lookup.get(name, workspacePath);
        parts.push(tool ? definition(tool) : `## ${name}\nNo tool has this name.`);
      }
      if (input.server !== undefined) {
        const tools = lookup.list(workspacePath).filter((tool) => (tool.group ?? builtInGroup) === input.server);
        parts.push(
          tools.length === 0
            ? `No server is named ${input.server}.`
            : [`Tools of ${input.server}:`, ...tools.map((tool) => `- ${tool.name}: ${firstSentence(tool.description)}`)].join('\n'),
        );
      }
      const defined = (input.names ?? []).length > 0;
      return {
        status: 'succeeded',
        output: `${parts.join('\n\n')}${defined ? '\n\nThese definitions come with your next request: call the tools as usual.' : ''}`,
      };
    },
  });
}

/** The definition of `describe_tools` as a request carries it. */
const describeSpec: ToolSpec = (() => {
  const tool = describeToolsTool({ get: () => undefined, list: () => [] });
  return { name: tool.name, description: tool.description, inputSchema: tool.inputJsonSchema, readOnly: true };
})();

/** The names of tools the model asked to have described, the latest last. */
function askedFor(entries: readonly ConversationEntry[]): string[] {
  const names: string[] = [];
  for (const entry of entries) {
    if (entry.role !== 'assistant') continue;
    for (const call of entry.toolCalls ?? []) {
      if (call.name !== describeToolsName) continue;
      try {
        const parsed = describeInput.safeParse(JSON.parse(call.arguments));
        if (parsed.success) names.push(...(parsed.data.names ?? []));
      } catch {
        // Arguments that were not JSON asked for nothing.
      }
    }
  }
  return names;
}

type Detail = 'lines' | 'names' | 'counts';

function catalogueOf(tools: readonly ToolSpec[], detail: Detail): string {
  const groups = new Map<string, ToolSpec[]>();
  for (const tool of tools) {
    const group = tool.group ?? builtInGroup;
    groups.set(group, [...(groups.get(group) ?? []), tool]);
  }
  const lines = [
    '# More tools',
    `Only some tools are defined for you. These exist too: to use one, first call ${describeToolsName} with its name (or with a server's name to list that server's tools); its definition comes with your next request.`,
  ];
  for (const [group, members] of groups) {
    lines.push(
      '',
      `## ${group === builtInGroup ? 'built-in' : `${group} (MCP server)`}: ${members.length} ${members.length === 1 ? 'tool' : 'tools'}`,
    );
    if (detail === 'counts') continue;
    for (const [category, inCategory] of [
      ['reads', members.filter((tool) => tool.readOnly === true)],
      ['changes things', members.filter((tool) => tool.readOnly !== true)],
    ] as const) {
      if (inCategory.length === 0) continue;
      if (detail === 'names') lines.push(`${category}: ${inCategory.map((tool) => tool.name).join(', ')}`);
      else lines.push(`${category}:`, ...inCategory.map((tool) => `- ${tool.name}: ${firstSentence(tool.description)}`));
    }
  }
  return lines.join('\n');
}

/** Short definitions, made once per definition: the same array of tools gives the same array of short ones. */
const shortSpecs = new WeakMap<ToolSpec, ToolSpec>();
const shortLists = new WeakMap<readonly ToolSpec[], readonly ToolSpec[]>();

/** Keywords a short schema leaves out: words, and limits the app checks itself when the call arrives. */
const leftOut = new Set(['$schema', 'examples', 'default', 'minLength', 'maxLength', 'additionalProperties']);

/** A JSON Schema without its words: descriptions, examples, defaults and length limits go; every property, type and choice stays. */
function withoutWords(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutWords);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if ((key === 'description' || key === 'title') && typeof value === 'string') continue;
    // A bound at the largest safe integer is no bound a model needs to read.
    if (
      leftOut.has(key) ||
      (key === 'maximum' && value === Number.MAX_SAFE_INTEGER) ||
      (key === 'minimum' && value === Number.MIN_SAFE_INTEGER)
    )
      continue;
    // Under `properties` the keys are names, which stay whatever they are called.
    out[key] =
      key === 'properties' && value !== null && typeof value === 'object' && !Array.isArray(value)
        ? Object.fromEntries(Object.entries(value).map(([name, property]) => [name, withoutWords(property)]))
        : withoutWords(value);
  }
  return out;
}

/** A definition made short for a small window: the first sentence of its description, and its schema without words. */
export function shortSpec(tool: ToolSpec): ToolSpec {
  let short = shortSpecs.get(tool);
  if (!short) {
    short = {
      ...tool,
      description: firstSentence(tool.description),
      inputSchema: withoutWords(tool.inputSchema) as Record<string, unknown>,
    };
    shortSpecs.set(tool, short);
  }
  return short;
}

function shortList(tools: readonly ToolSpec[]): readonly ToolSpec[] {
  let short = shortLists.get(tools);
  if (!short) {
    short = tools.map(shortSpec);
    shortLists.set(tools, short);
  }
  return short;
}

/**
 * The tool definitions a request carries, and the catalogue its system prompt gains. All of them when they fit within
 * `toolShare` of the window (the same array, so its size is counted once); else all of them made short (first
 * sentences, schemas without words); else, with no other server's tools, the short ones without the optional built-in
 * ones; otherwise the built-in tools that are not optional (short), those the model asked about (the newest first, as
 * far as they fit), and the rest as a catalogue in as much detail as fits. The same tools and window give
 * the same result, so the prompt's beginning holds from one request to the next.
 */
export function fitTools(
  tools: readonly ToolSpec[] | undefined,
  windowTokens: number,
  entries: readonly ConversationEntry[],
  tokensOf: (chars: number) => number,
): { tools: readonly ToolSpec[] | undefined; catalogue: string | null } {
  if (!tools || tools.length === 0) return { tools, catalogue: null };
  const budget = Math.floor(windowTokens * toolShare);
  // The same array when there is nothing to leave out, so its size is counted once, not at every request.
  const offered = tools.some((tool) => tool.name === describeToolsName) ? tools.filter((tool) => tool.name !== describeToolsName) : tools;
  if (tokensOf(charsOfTools(offered)) <= budget) return { tools: offered.length === tools.length ? tools : offered, catalogue: null };
  const short = shortList(tools);
  if (tokensOf(charsOfTools(short)) <= budget) return { tools: short, catalogue: null };
  // Next the optional built-in ones go (handing work to sub-agents): a window this small keeps its room for the agent's
  // own work, and a catalogue with the tool that describes it would take more than they did.
  const required = short.filter((tool) => tool.optional !== true);
  const others = required.some((tool) => (tool.group ?? builtInGroup) !== builtInGroup);
  if (required.length < short.length && !others && tokensOf(charsOfTools(required)) <= budget) return { tools: required, catalogue: null };
  const describe = shortSpec(tools.find((tool) => tool.name === describeToolsName) ?? describeSpec);
  const builtIn = offered.filter((tool) => (tool.group ?? builtInGroup) === builtInGroup && tool.optional !== true).map(shortSpec);
  // Only other tools (an MCP server's, and the optional built-in ones) go into a catalogue: the other built-in ones are
  // the agent's own, always defined.
  if (builtIn.length === offered.length) return { tools: short, catalogue: null };
  const asked = [...new Set(askedFor(entries).reverse())];
  const byName = new Map(offered.map((tool) => [tool.name, tool]));
  const defined = new Set(builtIn.map((tool) => tool.name));
  let used = tokensOf(charsOfTools(builtIn)) + tokensOf(JSON.stringify(describe).length);
  for (const name of asked) {
    const tool = byName.get(name);
    if (!tool || defined.has(name)) continue;
    const size = tokensOf(JSON.stringify(tool).length);
    if (used + size > budget) continue;
    defined.add(name);
    used += size;
  }
  const rest = offered.filter((tool) => !defined.has(tool.name));
  let catalogue = '';
  for (const detail of ['lines', 'names', 'counts'] as const) {
    catalogue = catalogueOf(rest, detail);
    if (used + tokensOf(catalogue.length) <= budget) break;
  }
  return { tools: [...offered.filter((tool) => defined.has(tool.name)).map(shortSpec), describe], catalogue };
}
