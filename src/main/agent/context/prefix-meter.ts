/*
 * How much of each prompt is unchanged from the one sent before it on the same line to the same model: what a
 * server's prompt cache can skip, and what it must read again.
 */
import { BoundedMap } from '../../../shared/bounded-map';
import type { ChatMessage, ModelRequest, ToolSpec } from '../ports/model-provider';

/** The last prompt sent on a line, as the meter compares it. */
interface Sent {
  readonly tools: string;
  readonly system: string;
  readonly messages: readonly ChatMessage[];
  /** Characters of the messages before each position: `sums[i]` is the length of the first `i`. */
  readonly sums: Float64Array;
}

/** The unchanged beginning of a prompt, in characters of its rendering (tools, system prompt, then the messages in order). */
export interface PrefixShare {
  readonly sharedChars: number;
  readonly totalChars: number;
  /** Characters of the fixed part (tools and system prompt), which the messages follow. */
  readonly fixedChars: number;
  /** Nothing was sent on this line before (in this run of the app): the server has nothing of it to reuse. */
  readonly first: boolean;
}

/** The characters two texts begin with in common. */
function commonStart(a: string, b: string): number {
  const most = Math.min(a.length, b.length);
  let index = 0;
  while (index < most && a.charCodeAt(index) === b.charCodeAt(index)) index += 1;
  return index;
}

/**
 * The prompts last sent on each line (a session's conversation with one model, or a side line such as its separate
 * summaries), compared with the next: a server that keeps the evaluated prompt (llama.cpp's slots, Ollama's loaded
 * context, Anthropic's cache) reads again only what follows their common beginning. Messages are compared by identity
 * first (a turn's view reuses the objects it sent before), then by their text.
 */
export class PrefixMeter {
  private readonly last = new BoundedMap<string, Sent>({ max: 200 });
  private readonly renders = new WeakMap<ChatMessage, string>();
  private readonly toolTexts = new WeakMap<readonly ToolSpec[], string>();

  /** Measures `request` against the last one sent on `line`, and keeps it as the last. */
  measure(line: string, request: ModelRequest): PrefixShare {
    const tools = this.toolsText(request.tools);
    const system = request.system ?? '';
    const { messages } = request;
    const previous = this.last.get(line);
    const sums = new Float64Array(messages.length + 1);
    let same = 0;
    if (previous && previous.tools === tools && previous.system === system) {
      const most = Math.min(messages.length, previous.messages.length);
      while (same < most && previous.messages[same] === messages[same]) same += 1;
      sums.set(previous.sums.subarray(0, same + 1));
    }
    for (let index = same; index < messages.length; index += 1)
      sums[index + 1] = (sums[index] ?? 0) + this.render(messages[index] as ChatMessage).length;
    const fixed = tools.length + system.length;
    const totalChars = fixed + (sums[messages.length] ?? 0);
    // A copy: a turn's conversation grows in place, and the same array, longer, would look unchanged next time.
    this.last.set(line, { tools, system, messages: messages.slice(), sums });
    const share = { totalChars, fixedChars: fixed, first: false };
    if (!previous) return { ...share, sharedChars: 0, first: true };
    if (previous.tools !== tools) return { ...share, sharedChars: commonStart(previous.tools, tools) };
    if (previous.system !== system) return { ...share, sharedChars: tools.length + commonStart(previous.system, system) };
    // Past the messages sent as the same objects: the same text counts the same, up to the first difference.
    let shared = fixed + (sums[same] ?? 0);
    for (let index = same; index < Math.min(messages.length, previous.messages.length); index += 1) {
      const now = this.render(messages[index] as ChatMessage);
      const before = this.render(previous.messages[index] as ChatMessage);
      if (now !== before) return { ...share, sharedChars: shared + commonStart(before, now) };
      shared += now.length;
    }
    return { ...share, sharedChars: shared };
  }

  /** Forgets a line: its server no longer holds it (the app cannot know what another program sent since). */
  forget(line: string): void {
    this.last.delete(line);
  }

  private toolsText(tools: readonly ToolSpec[] | undefined): string {
    if (!tools || tools.length === 0) return '';
    let text = this.toolTexts.get(tools);
    if (text === undefined) {
      text = JSON.stringify(tools.map((tool) => [tool.name, tool.description, tool.inputSchema]));
      this.toolTexts.set(tools, text);
    }
    return text;
  }

  /** A message as the comparison reads it: its role, text, calls and images in the order a template writes them. */
  private render(message: ChatMessage): string {
    let text = this.renders.get(message);
    if (text !== undefined) return text;
    if (message.role === 'user')
      text = `\u0000user\u0000${message.content}${(message.images ?? []).map((image) => `\u0000${image.path}:${image.data.length}`).join('')}`;
    else if (message.role === 'assistant')
      text = `\u0000assistant\u0000${message.content}${(message.toolCalls ?? []).map((call) => `\u0000${call.id}\u0000${call.name}\u0000${call.arguments}`).join('')}`;
    else text = `\u0000tool\u0000${message.toolCallId}\u0000${message.isError ? 'error' : ''}\u0000${message.content}`;
    this.renders.set(message, text);
    return text;
  }
}

/**
 * The tokens of a prompt's unchanged beginning, for a prompt of `tokens` whose fixed part took `fixedTokens`: each part
 * by its own share of characters, as the two are counted by ratios of their own (the fixed part is the denser).
 */
export function sharedTokens(share: PrefixShare, tokens: number, fixedTokens: number): number {
  const fixed = Math.min(fixedTokens, tokens);
  if (share.sharedChars < share.fixedChars) return Math.round((fixed * share.sharedChars) / Math.max(1, share.fixedChars));
  const messageChars = share.sharedChars - share.fixedChars;
  return Math.min(tokens, fixed + Math.round(((tokens - fixed) * messageChars) / Math.max(1, share.totalChars - share.fixedChars)));
}
