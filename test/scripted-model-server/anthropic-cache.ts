import { createHash } from 'node:crypto';
import { promptTokensOf } from './overflow';
import { withoutBreakpoints } from './tokens';

/*
 * The Anthropic prompt cache, as the Messages API keeps it (https://platform.claude.com/docs/en/build-with-claude/prompt-caching).
 * A request's prompt is its tools, its system prompt and its messages, in that order, block by block. At each block
 * with a `cache_control` breakpoint the prompt up to there is written to the cache; a later request reads it when its
 * own prompt begins with the very same blocks, found at one of its breakpoints or at a block boundary up to 20 blocks
 * before one. Usage then says what was read, what was written (from there up to the last breakpoint) and the rest.
 * What the scripted cache leaves out: the five minutes an entry lives, and the least length worth caching.
 */

/** How far before a breakpoint the API looks for an entry it can read. */
const lookback = 20;
/** The most breakpoints a request may have. */
const maxBreakpoints = 4;

/** How one request's prompt was read, in tokens: from the cache, written to it, and neither. The three add up to the prompt. */
export interface CacheUsage {
  readonly read: number;
  readonly written: number;
  readonly uncached: number;
}

/** The usage figures the API gives for a prompt so read. */
export function cacheUsageFields(cache: CacheUsage): Record<string, number> {
  return { input_tokens: cache.uncached, cache_creation_input_tokens: cache.written, cache_read_input_tokens: cache.read };
}

type Body = Record<string, unknown>;
type Block = Record<string, unknown>;

/** One block of the prompt: where it is (for errors), whether it has a breakpoint, and the prompt up to and including it. */
interface Unit {
  readonly path: string;
  readonly block: unknown;
  readonly marked: boolean;
  /** What identifies the block in the chain of blocks before it: its role and whether it opens a message too. */
  readonly identity: string;
  prefix(): Body;
}

const arrayOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const isMarked = (block: unknown): boolean =>
  block !== null && typeof block === 'object' && (block as Block)['cache_control'] !== undefined;

/** The prompt's blocks in the order the API reads them: tools, system, messages. */
function unitsOf(body: Body): Unit[] {
  const tools = arrayOf(body['tools']);
  const system = body['system'];
  const messages = arrayOf(body['messages']) as Block[];
  const units: Unit[] = tools.map((tool, at) => ({
    path: `tools.${at}`,
    block: tool,
    marked: isMarked(tool),
    identity: 'tool',
    prefix: () => ({ tools: tools.slice(0, at + 1) }),
  }));
  const withTools = tools.length > 0 ? { tools } : {};
  const systemBlocks = typeof system === 'string' ? [system] : arrayOf(system);
  systemBlocks.forEach((block, at) =>
    units.push({
      path: `system.${at}`,
      block,
      marked: isMarked(block),
      identity: 'system',
      prefix: () => ({ ...withTools, system: typeof system === 'string' ? system : systemBlocks.slice(0, at + 1) }),
    }),
  );
  const withSystem = system === undefined ? withTools : { ...withTools, system };
  messages.forEach((message, index) => {
    const content = message['content'];
    const blocks = typeof content === 'string' ? [content] : arrayOf(content);
    blocks.forEach((block, at) =>
      units.push({
        path: `messages.${index}.content.${at}`,
        block,
        marked: isMarked(block),
        identity: `${String(message['role'])}${at === 0 ? ' opens' : ''}`,
        prefix: () => ({
          ...withSystem,
          messages: [...messages.slice(0, index), { ...message, content: typeof content === 'string' ? content : blocks.slice(0, at + 1) }],
        }),
      }),
    );
  });
  return units;
}

/** Why the API refuses the request's breakpoints, in its words, or null when it does not. */
export function breakpointRefusal(body: Body): string | null {
  const units = unitsOf(body);
  for (const unit of units) {
    if (!unit.marked || unit.block === null || typeof unit.block !== 'object') continue;
    const block = unit.block as Block;
    const type = block['type'];
    if (type === 'thinking' || type === 'redacted_thinking') return `${unit.path}.${type}.cache_control: Extra inputs are not permitted`;
    if (type === 'text' && block['text'] === '') return `${unit.path}.text: cache_control cannot be set for empty text blocks`;
  }
  const found = units.filter((unit) => unit.marked).length;
  return found > maxBreakpoints ? `A maximum of ${maxBreakpoints} blocks with cache_control may be provided. Found ${found}.` : null;
}

/** The prompt cache of one scripted server: the prefixes written, by a hash of their blocks. */
export class AnthropicPromptCache {
  private readonly entries = new Set<string>();

  /**
   * Serves a request of `promptTokens`: reads the longest entry found from its breakpoints, writes the prompt up to each
   * of them, and says how the prompt was read.
   */
  serve(body: Body, promptTokens: number): CacheUsage {
    const units = unitsOf(body);
    const keys: string[] = [];
    let key = `model ${String(body['model'])}`;
    for (const unit of units) {
      key = createHash('sha256').update(key).update(unit.identity).update(JSON.stringify(unit.block, withoutBreakpoints)).digest('hex');
      keys.push(key);
    }
    const breakpoints = units.flatMap((unit, at) => (unit.marked ? [at] : []));
    let found = -1;
    for (const at of breakpoints)
      for (let back = at; back >= Math.max(0, at - lookback); back -= 1)
        if (this.entries.has(keys[back] ?? '')) {
          found = Math.max(found, back);
          break;
        }
    const tokensTo = (at: number): number => (at < 0 ? 0 : promptTokensOf(true, units[at]?.prefix() ?? {}));
    const read = tokensTo(found);
    const last = breakpoints.at(-1) ?? -1;
    const written = last > found ? tokensTo(last) - read : 0;
    for (const at of breakpoints) this.entries.add(keys[at] ?? '');
    return { read, written, uncached: Math.max(0, promptTokens - read - written) };
  }

  /** Forgets every entry, for the next test. */
  reset(): void {
    this.entries.clear();
  }
}
