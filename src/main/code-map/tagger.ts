/*
 * Definitions and references in a file's source, read with tree-sitter: the tags the code map and the symbol tools
 * are made of.
 */

import { createRequire } from 'node:module';
import { Language, Parser, Query } from 'web-tree-sitter';
import { WorkbenchError } from '../../shared/errors';
import { languageOf, type CodeLanguage, type DefinitionType } from './languages';

/** A name defined or used in a file, with its lines (from 1) and the text that shows it. */
export interface Tag {
  readonly name: string;
  /** What it defines; absent on a reference. */
  readonly defines?: DefinitionType;
  readonly line: number;
  readonly endLine: number;
  /** A definition's first line (its signature, as far as one line holds it); a reference's line. */
  readonly text: string;
}

/** What tagging a file found: its tags, and whether its parse had errors (tags are still those it could read). */
export interface FileTags {
  readonly language: string;
  readonly tags: readonly Tag[];
  readonly parseErrors: boolean;
}

/** A file as the code index holds it: what it was when read (size and change time), and its tags. */
export interface IndexedFile extends FileTags {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  readonly ino: number;
}

/** The longest line kept as a tag's text. */
const maxTextChars = 200;
/** The longest name tagged: longer ones are generated, not written. */
const maxNameChars = 200;
/** The most tags kept of one file. */
const maxTagsPerFile = 5_000;

/** A string of its own, not a slice of a longer one. */
const own = (text: string): string => Buffer.from(text, 'utf8').toString('utf8');
/** Files larger than this (in bytes) are not parsed: generated or bundled code, not worth a map entry. */
export const maxTaggedBytes = 1_000_000;

const definitionTypes: ReadonlySet<string> = new Set<DefinitionType>([
  'function',
  'method',
  'class',
  'interface',
  'type',
  'module',
  'constant',
]);

/** A grammar that could not be loaded, or a query it does not take: the files of that language are not tagged. */
export class GrammarError extends WorkbenchError {
  constructor(
    readonly language: string,
    readonly reason: string,
  ) {
    super('internal', `The ${language} grammar could not be used: ${reason}`);
  }
}

interface Loaded {
  readonly parser: Parser;
  readonly query: Query;
}

/**
 * Tags source files by their language. Grammars are loaded on first use of their language and kept; a grammar that
 * fails to load fails the files of its language only, each time with the same error.
 */
export class Tagger {
  private readonly loaded = new Map<string, Promise<Loaded>>();

  /** The tags of a file's source; null when the file is not of a language the tagger reads. */
  async tag(path: string, source: string): Promise<FileTags | null> {
    const language = languageOf(path);
    if (!language) return null;
    if (source.length > maxTaggedBytes) return { language: language.id, tags: [], parseErrors: false };
    const { parser, query } = await this.load(language);
    const tree = parser.parse(source);
    if (!tree) return { language: language.id, tags: [], parseErrors: true };
    try {
      const lines = source.split('\n');
      // Copied, not sliced: a slice would keep the whole source alive for as long as the index holds the tag.
      const textOf = (row: number): string => own((lines[row] ?? '').trim().slice(0, maxTextChars));
      const tags: Tag[] = [];
      const seen = new Set<string>();
      for (const match of query.matches(tree.rootNode)) {
        if (tags.length >= maxTagsPerFile) break;
        const name = match.captures.find((capture) => capture.name === 'name')?.node;
        const whole = match.captures.find((capture) => capture.name !== 'name');
        if (!name || !whole) continue;
        const defines = whole.name.startsWith('definition.') ? whole.name.slice('definition.'.length) : null;
        if (defines !== null && !definitionTypes.has(defines)) continue;
        if (name.text.length > maxNameChars) continue;
        // A tag stands where its name is: a definition's annotations and modifiers before it are not its signature,
        // and calls chained over several lines are each on their own line.
        const row = name.startPosition.row;
        // Once per name and place: patterns that overlap (a method also matched as a function) count once.
        const key = `${name.text}\u0000${row}\u0000${name.startPosition.column}\u0000${defines ?? 'reference'}`;
        if (seen.has(key)) continue;
        seen.add(key);
        tags.push({
          name: own(name.text),
          ...(defines === null ? {} : { defines: defines as DefinitionType }),
          line: row + 1,
          endLine: whole.node.endPosition.row + 1,
          text: textOf(row),
        });
      }
      return { language: language.id, tags, parseErrors: tree.rootNode.hasError };
    } finally {
      tree.delete();
    }
  }

  private load(language: CodeLanguage): Promise<Loaded> {
    let loaded = this.loaded.get(language.id);
    if (!loaded) {
      loaded = loadLanguage(language);
      this.loaded.set(language.id, loaded);
    }
    return loaded;
  }
}

/** tree-sitter's own runtime, started once for every grammar. */
let initialized: Promise<void> | null = null;

async function loadLanguage(language: CodeLanguage): Promise<Loaded> {
  const require = createRequire(import.meta.url);
  let grammar: Language;
  try {
    initialized ??= Parser.init();
    await initialized;
    grammar = await Language.load(require.resolve(`@vscode/tree-sitter-wasm/wasm/${language.grammar}`));
  } catch (error) {
    throw new GrammarError(language.id, error instanceof Error ? error.message : String(error));
  }
  let query: Query;
  try {
    query = new Query(grammar, language.query);
  } catch (error) {
    throw new GrammarError(language.id, `its query does not fit it: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parser = new Parser();
  parser.setLanguage(grammar);
  return { parser, query };
}
