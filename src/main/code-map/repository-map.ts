/*
 * The repository map given to the model with the person's message: the index brought up to date (or, on a first index
 * that takes long, left to finish for the next message), the conversation's files and the message's mentions found in
 * it, and the ranked definitions rendered within the budget.
 */

import { isAbsolute, relative, sep } from 'node:path';
import { CancelledError, toErrorInfo } from '../../shared/errors';
import type { CodeMapRequest, CodeMapResult, CodeMapSource } from '../agent/ports/code-map';
import type { CodeIndex } from './code-index';
import type { CodeMaps } from './code-maps';
import { renderMap } from './map-rank';

/** How long a message waits for the index to be brought up to date (a first index of a large tree goes on after it). */
const defaultWaitMs = 1_500;
/** The definitions ranked for a map: more than any budget the settings allow can show. */
const rankedLimit = 3_000;
/** At most this many identifiers of a message lean the ranking: a pasted log is mostly noise. */
const maxNames = 200;

export interface RepositoryMapsOptions {
  readonly maps: CodeMaps;
  /** How long a message waits for the index; 1.5 s by default. */
  readonly waitMs?: number;
}

/** A path as the index keys it (root-relative, `/`-separated), or null when it is outside the root. */
function indexPath(root: string, path: string): string | null {
  const trimmed = path.trim().replace(/^\.\//, '');
  if (trimmed === '') return null;
  const inside = isAbsolute(trimmed) ? relative(root, trimmed) : trimmed;
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) return null;
  return inside.split(sep).join('/');
}

/** The words of a message that may name a file: they hold a `/` or a dot followed by a letter, quotes and punctuation trimmed. */
function pathLikeWords(message: string): string[] {
  const words: string[] = [];
  for (const match of message.matchAll(/[\w./@-]+/g)) {
    const word = match[0].replace(/^@/, '').replace(/[.,;:!?]+$/, '');
    if (word.includes('/') || /\.[A-Za-z]\w*$/.test(word)) words.push(word);
  }
  return words;
}

/** The identifiers of a message, as written: three characters or more, each once. */
export function identifiersOf(message: string): Set<string> {
  const names = new Set<string>();
  for (const match of message.matchAll(/[A-Za-z_$][\w$]{2,}/g)) {
    names.add(match[0]);
    if (names.size >= maxNames) break;
  }
  return names;
}

/**
 * The files of the index a message names: by its whole path, by a tail of it after a `/` (`agent/turn.ts`), or by its
 * file name when only one indexed file has it.
 */
function namedFiles(index: CodeIndex, root: string, words: readonly string[]): Set<string> {
  const found = new Set<string>();
  if (words.length === 0) return found;
  const paths = index.entries().map(([path]) => path);
  for (const word of words) {
    const wanted = indexPath(root, word);
    if (wanted === null) continue;
    if (index.outline(wanted) !== null) {
      found.add(wanted);
      continue;
    }
    const tails = paths.filter((path) => path.endsWith(`/${wanted}`));
    if (tails.length === 1 && tails[0] !== undefined) found.add(tails[0]);
  }
  return found;
}

/** Repository maps over the workspaces' code indexes. */
export class RepositoryMaps implements CodeMapSource {
  constructor(private readonly options: RepositoryMapsOptions) {}

  async render(request: CodeMapRequest): Promise<CodeMapResult> {
    let index: CodeIndex;
    try {
      index = this.options.maps.of(request.workspacePath);
    } catch (error) {
      return { kind: 'empty', note: `No code map: ${toErrorInfo(error).message}` };
    }
    const progress = { done: 0, total: 0 };
    const refresh = index.refresh(undefined, (done, total) => Object.assign(progress, { done, total }));
    // A refresh that fails is said once, here or (when it outlives the wait) never: the next message tries again.
    refresh.catch(() => undefined);
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stop = (): void => undefined;
    const waited = await Promise.race([
      refresh.then(
        () => ({ kind: 'done' as const }),
        (error: unknown) => ({ kind: 'failed' as const, error }),
      ),
      new Promise<{ kind: 'late' }>(
        (resolve) => (timer = setTimeout(() => resolve({ kind: 'late' }), this.options.waitMs ?? defaultWaitMs)),
      ),
      new Promise<{ kind: 'stopped' }>((resolve) => {
        stop = () => resolve({ kind: 'stopped' });
        if (request.signal.aborted) stop();
        else request.signal.addEventListener('abort', stop, { once: true });
      }),
    ]).finally(() => {
      clearTimeout(timer);
      request.signal.removeEventListener('abort', stop);
    });
    if (waited.kind === 'stopped') throw new CancelledError();
    // A refresh that outlasts the wait goes on for the next message; this one gets the map of what the index holds, when
    // it held the whole workspace once (what changed meanwhile is what the refresh is reading).
    if (waited.kind === 'late' && !index.whole) return { kind: 'indexing', ...progress };
    if (waited.kind === 'failed') return { kind: 'empty', note: `No code map: ${toErrorInfo(waited.error).message}` };
    if (index.size === 0) return { kind: 'empty' };
    const { root } = index;
    const inIndex = (paths: Iterable<string>): Set<string> => {
      const kept = new Set<string>();
      for (const path of paths) {
        const key = indexPath(root, path);
        if (key !== null && index.outline(key) !== null) kept.add(key);
      }
      return kept;
    };
    const chatFiles = inIndex(request.chatFiles);
    const mentionedFiles = new Set([...inIndex(request.attachedFiles), ...namedFiles(index, root, pathLikeWords(request.message))]);
    const ranked = index.graph().rank({ chatFiles, mentionedFiles, mentionedNames: identifiersOf(request.message) }, rankedLimit);
    const text = renderMap(ranked, request.budget, (piece) => request.tokens(piece.length));
    if (text === '') return { kind: 'empty' };
    const files = text.split('\n').filter((line) => !line.startsWith(' ')).length;
    const definitions = text.split('\n').length - files;
    return { kind: 'map', text, files, definitions, indexed: index.size };
  }
}
