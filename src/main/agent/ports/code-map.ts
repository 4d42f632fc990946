/*
 * The repository map's interface: the workspace's definitions that most likely bear on the person's message, ranked
 * and rendered within a budget of tokens.
 */

/** What a map is asked for: the workspace, what the conversation is about, and the room it may take. */
export interface CodeMapRequest {
  readonly workspacePath: string;
  /** Paths the conversation's tool calls named (read, written, outlined): their definitions are known already. */
  readonly chatFiles: readonly string[];
  /** Paths attached to the person's message. */
  readonly attachedFiles: readonly string[];
  /** The person's latest message: the files and names it mentions lean the ranking towards them. */
  readonly message: string;
  /** The most tokens the map may take. */
  readonly budget: number;
  /** Tokens of so many characters, by the model's ratio. */
  readonly tokens: (chars: number) => number;
  readonly signal: AbortSignal;
}

/** A map for one message, or why there is none. */
export type CodeMapResult =
  | {
      readonly kind: 'map';
      /** The map itself: each file once, its definitions by line. */
      readonly text: string;
      readonly files: number;
      readonly definitions: number;
      /** Files the index holds. */
      readonly indexed: number;
    }
  /** The workspace is being indexed for the first time, and was not ready in time: the next message gets a map. */
  | { readonly kind: 'indexing'; readonly done: number; readonly total: number }
  /** No source file the map knows, or nothing fits the budget. */
  | { readonly kind: 'empty'; readonly note?: string };

/** Makes repository maps. Never throws for what it finds in the workspace: that is an `empty` result with a note. */
export interface CodeMapSource {
  render(request: CodeMapRequest): Promise<CodeMapResult>;
}
