/*
 * The repository map: the workspace's definitions ranked by how the files refer to each other, leaning towards what
 * the conversation is about, and rendered as signatures within a budget of tokens.
 */

import type { IndexedFile, Tag } from './tagger';

/** What the conversation is about: the files it has, the files and names the person's latest message names. */
export interface MapFocus {
  /** Files in the conversation (read, written, attached): their own definitions are left out, they are known already. */
  readonly chatFiles?: ReadonlySet<string>;
  /** Files the latest message names or that were attached to it. */
  readonly mentionedFiles?: ReadonlySet<string>;
  /** Identifiers in the latest message. */
  readonly mentionedNames?: ReadonlySet<string>;
}

/** A definition with its file and the rank it has for this focus. */
export interface RankedDefinition {
  readonly path: string;
  readonly tag: Tag;
  readonly rank: number;
}

const damping = 0.85;
/** The ranks of a walk settle when a round moves them by less than `settled` in all, or after `maxIterations`. */
const maxIterations = 60;
const settled = 1e-6;
/**
 * Names defined in more files than this say nothing of which file is meant (`get`, `init`, `constructor`, `then`):
 * they make no edge, which also keeps the graph small enough to rank for every request.
 */
const commonNameFiles = 5;

/** One name's edges: from each file that uses it to each file that defines it, with the weight of its uses. */
interface NameEdges {
  readonly from: Int32Array;
  readonly to: Int32Array;
  readonly weight: Float64Array;
  /** Per edge, the slot of the definition it leads to (its file and this name). */
  readonly slot: Int32Array;
}

/** A definition of the graph's files: where it is, and the slot its rank from uses is summed in (-1: none uses it). */
interface GraphDefinition {
  readonly path: string;
  readonly file: number;
  readonly tag: Tag;
  readonly slot: number;
}

/**
 * The files of a workspace as a graph for ranking: each reference to a name an edge to the files that define it. What
 * does not depend on the request (who defines and uses what, the edges and their base weights, summed per pair of
 * files) is worked out once per state of the index; `rank` adds the request's focus.
 */
export class CodeGraph {
  private readonly paths: string[];
  private readonly files: IndexedFile[];
  private readonly definers = new Map<string, number[]>();
  private readonly byName = new Map<string, NameEdges>();
  /** The edges summed per pair of files (the name left out), as PageRank walks them. */
  private readonly pairFrom: Int32Array;
  private readonly pairTo: Int32Array;
  private readonly pairWeight: Float64Array;
  private readonly pairOf = new Map<number, number>();
  private readonly definitions: GraphDefinition[] = [];
  private readonly slots: number;

  constructor(entries: ReadonlyArray<readonly [string, IndexedFile]>) {
    this.paths = entries.map(([path]) => path);
    this.files = entries.map(([, file]) => file);
    const uses = new Map<string, Map<number, number>>();
    this.files.forEach((file, index) => {
      for (const tag of file.tags) {
        if (tag.defines !== undefined) {
          const list = this.definers.get(tag.name);
          if (!list) this.definers.set(tag.name, [index]);
          else if (list[list.length - 1] !== index) list.push(index);
        } else {
          const counts = uses.get(tag.name) ?? new Map<number, number>();
          counts.set(index, (counts.get(index) ?? 0) + 1);
          uses.set(tag.name, counts);
        }
      }
    });
    const pairs = new Map<number, number>();
    const size = this.paths.length;
    // A slot per file and name defined there that some other file uses.
    const slotOf = new Map<string, number>();
    const slotFor = (file: number, name: string): number => {
      const key = `${file}\u0000${name}`;
      let slot = slotOf.get(key);
      if (slot === undefined) {
        slot = slotOf.size;
        slotOf.set(key, slot);
      }
      return slot;
    };
    for (const [name, counts] of uses) {
      const defined = this.definers.get(name);
      if (!defined || defined.length > commonNameFiles) continue;
      const base = name.startsWith('_') ? 0.1 : 1;
      const from: number[] = [];
      const to: number[] = [];
      const weight: number[] = [];
      const slot: number[] = [];
      for (const [user, count] of counts)
        for (const definer of defined) {
          if (definer === user) continue;
          const value = base * Math.sqrt(count);
          from.push(user);
          to.push(definer);
          weight.push(value);
          slot.push(slotFor(definer, name));
          const key = user * size + definer;
          pairs.set(key, (pairs.get(key) ?? 0) + value);
        }
      if (from.length > 0)
        this.byName.set(name, {
          from: Int32Array.from(from),
          to: Int32Array.from(to),
          weight: Float64Array.from(weight),
          slot: Int32Array.from(slot),
        });
    }
    this.pairFrom = new Int32Array(pairs.size);
    this.pairTo = new Int32Array(pairs.size);
    this.pairWeight = new Float64Array(pairs.size);
    this.slots = slotOf.size;
    this.files.forEach((file, index) => {
      for (const tag of file.tags)
        if (tag.defines !== undefined)
          this.definitions.push({ path: this.paths[index] ?? '', file: index, tag, slot: slotOf.get(`${index}\u0000${tag.name}`) ?? -1 });
    });
    let at = 0;
    for (const [key, value] of pairs) {
      this.pairFrom[at] = Math.floor(key / size);
      this.pairTo[at] = key % size;
      this.pairWeight[at] = value;
      this.pairOf.set(key, at);
      at += 1;
    }
  }

  /**
   * The definitions ranked for a request, best first, at most `limit` of them: PageRank over the files, personalized
   * towards the conversation's and the message's files; each file's rank shared out over the names it refers to, to
   * the definitions of those names. The conversation's and the message's files are where the walk starts again a
   * hundred times as often as others, and files that define a name the message uses ten times; names the message uses
   * weigh ten times (and their definitions rank ten times higher); names private by their look a tenth, and names
   * defined in many files nothing. The conversation's own files are left out: it holds them already. The same focus always gives the
   * same map, so a prompt that holds it stays the same.
   */
  rank(focus: MapFocus = {}, limit = Number.POSITIVE_INFINITY): RankedDefinition[] {
    const chatFiles = focus.chatFiles ?? new Set<string>();
    const mentionedFiles = focus.mentionedFiles ?? new Set<string>();
    const mentionedNames = focus.mentionedNames ?? new Set<string>();
    const size = this.paths.length;
    if (size === 0) return [];
    const chat = Uint8Array.from(this.paths, (path) => (chatFiles.has(path) ? 1 : 0));

    // The pairs' weights for this request: a name the message uses weighs ten times.
    const weight = Float64Array.from(this.pairWeight);
    for (const name of mentionedNames) {
      const edges = this.byName.get(name);
      if (!edges) continue;
      for (let index = 0; index < edges.from.length; index += 1) {
        const pair = this.pairOf.get((edges.from[index] ?? 0) * size + (edges.to[index] ?? 0));
        if (pair !== undefined) weight[pair] = (weight[pair] ?? 0) + 9 * (edges.weight[index] ?? 0);
      }
    }
    const total = new Float64Array(size);
    for (let pair = 0; pair < weight.length; pair += 1) {
      const from = this.pairFrom[pair] ?? 0;
      total[from] = (total[from] ?? 0) + (weight[pair] ?? 0);
    }

    // Where a walk starts again: the conversation's and the message's files, and those that define a name it uses.
    const teleport = Float64Array.from(this.paths, (path) => (chatFiles.has(path) || mentionedFiles.has(path) ? 100 : 1));
    for (const name of mentionedNames) for (const index of this.definers.get(name) ?? []) teleport[index] = (teleport[index] ?? 1) * 10;
    const teleportSum = teleport.reduce((sum, value) => sum + value, 0);
    for (let index = 0; index < size; index += 1) teleport[index] = (teleport[index] ?? 0) / teleportSum;

    // Each pair's share of its file's walk.
    const share = new Float64Array(weight.length);
    for (let pair = 0; pair < weight.length; pair += 1)
      share[pair] = (damping * (weight[pair] ?? 0)) / (total[this.pairFrom[pair] ?? 0] || 1);
    const from = this.pairFrom;
    const to = this.pairTo;
    let rank = Float64Array.from(teleport);
    for (let round = 0; round < maxIterations; round += 1) {
      const next = new Float64Array(size);
      let dangling = 0;
      for (let index = 0; index < size; index += 1) if (total[index] === 0) dangling += rank[index] as number;
      // Typed arrays of known length: every index below is in range.
      for (let pair = 0; pair < share.length; pair += 1)
        (next[to[pair] as number] as number) += (rank[from[pair] as number] as number) * (share[pair] as number);
      let moved = 0;
      for (let index = 0; index < size; index += 1) {
        next[index] = (next[index] ?? 0) + (1 - damping + damping * dangling) * (teleport[index] ?? 0);
        moved += Math.abs((next[index] ?? 0) - (rank[index] ?? 0));
      }
      rank = next;
      if (moved < settled) break;
    }

    // Each file's rank shared out over its edges, to the definitions of the names they follow.
    const fromUses = new Float64Array(this.slots);
    for (const [name, edges] of this.byName) {
      const asked = mentionedNames.has(name) ? 10 : 1;
      for (let index = 0; index < edges.from.length; index += 1) {
        const from = edges.from[index] ?? 0;
        const slot = edges.slot[index] ?? 0;
        fromUses[slot] = (fromUses[slot] ?? 0) + ((rank[from] ?? 0) * (edges.weight[index] ?? 0) * asked) / ((total[from] ?? 0) || 1);
      }
    }
    // Scores first, objects only for the best: a large workspace has tens of thousands of definitions.
    const scores = new Float64Array(this.definitions.length);
    this.definitions.forEach((definition, index) => {
      if (chat[definition.file] === 1) {
        scores[index] = Number.NEGATIVE_INFINITY;
        return;
      }
      // A definition nothing refers to still ranks by its file's rank, below the ones referred to, unless the message
      // names it: then it ranks as its file does, as if the message referred to it.
      const used = definition.slot < 0 ? 0 : (fromUses[definition.slot] ?? 0);
      const asked = mentionedNames.has(definition.tag.name) ? 10 : 1;
      scores[index] = (used + (rank[definition.file] ?? 0) * (asked > 1 ? 1 : 1e-3)) * asked;
    });
    let threshold = Number.NEGATIVE_INFINITY;
    if (scores.length > limit) threshold = Float64Array.from(scores).sort()[scores.length - limit] ?? threshold;
    const ranked: RankedDefinition[] = [];
    this.definitions.forEach((definition, index) => {
      const score = scores[index] ?? Number.NEGATIVE_INFINITY;
      if (score === Number.NEGATIVE_INFINITY || score < threshold) return;
      ranked.push({ path: definition.path, tag: definition.tag, rank: score });
    });
    ranked.sort((a, b) => b.rank - a.rank || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.tag.line - b.tag.line));
    return ranked.slice(0, limit);
  }
}

/** The definitions of `files` ranked for a request (see `CodeGraph.rank`); a graph made for this once. */
export function rankDefinitions(
  files: ReadonlyArray<readonly [string, IndexedFile]>,
  focus: MapFocus = {},
  limit = Number.POSITIVE_INFINITY,
): RankedDefinition[] {
  return new CodeGraph(files).rank(focus, limit);
}

/** The map's text for the first `count` definitions: each file once, its definitions by line, each as its first line. */
export function mapText(ranked: readonly RankedDefinition[], count: number): string {
  const byFile = new Map<string, Tag[]>();
  for (const { path, tag } of ranked.slice(0, count)) byFile.set(path, [...(byFile.get(path) ?? []), tag]);
  const blocks: string[] = [];
  for (const [path, tags] of byFile) {
    const lines = [...new Map(tags.map((tag) => [tag.line, tag])).values()].sort((a, b) => a.line - b.line);
    blocks.push(`${path}:\n${lines.map((tag) => `${String(tag.line).padStart(5)}│ ${tag.text}`).join('\n')}`);
  }
  return blocks.join('\n');
}

/**
 * The map within `budget` tokens: as many of the best-ranked definitions as fit, or '' when not even one does. The
 * count is found from the lines' own sizes, added up in rank order (a file's name counted with its first definition),
 * then checked on the text itself and lowered until it fits.
 */
export function renderMap(ranked: readonly RankedDefinition[], budget: number, tokens: (text: string) => number): string {
  if (budget <= 0 || ranked.length === 0) return '';
  const named = new Set<string>();
  let used = 0;
  let count = 0;
  for (const { path, tag } of ranked) {
    const cost = tokens(`${String(tag.line).padStart(5)}│ ${tag.text}\n`) + (named.has(path) ? 0 : tokens(`${path}:\n`));
    if (used + cost > budget) break;
    used += cost;
    named.add(path);
    count += 1;
  }
  for (; count > 0; count = Math.floor(count * 0.9)) {
    const text = mapText(ranked, count);
    if (tokens(text) <= budget) return text;
  }
  return '';
}
