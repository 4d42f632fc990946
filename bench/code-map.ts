import { copyFileSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { CodeIndex } from '../src/main/code-map/code-index';
import { languageOf } from '../src/main/code-map/languages';
import { renderMap } from '../src/main/code-map/map-rank';
import { CodeMaps } from '../src/main/code-map/code-maps';
import { RepositoryMaps } from '../src/main/code-map/repository-map';
import { Tagger } from '../src/main/code-map/tagger';
import { WorkerTagger, sourceTagWorker } from '../src/main/code-map/worker-tagger';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Tool } from '../src/main/agent/ports/tools';
import { readFileTool, searchTool } from '../src/main/tools/file-reading-tools';
import { workspaceOf, type FilesOf } from '../src/main/tools/file-tool-kit';
import { symbolTools } from '../src/main/tools/symbol-tools';
import { WorkspaceFiles } from '../src/main/workspace/workspace-files';
import { temporaryFolder } from '../test/helpers';

/*
 * The code map over a large tree of real code nobody here wrote: the sources of installed packages, copied into a
 * workspace of their own. Figures, each beside a baseline of the same run:
 * - a first index (every file read and tagged) against reading the same files' bytes alone;
 * - the main thread during a first index (how late its timers fire, p99), with the files tagged on the tagging thread as
 *   the app does, against the same index tagged on the main thread;
 * - a later start with the index cached on disk (walk and look, read nothing), p99 over several;
 * - bringing the index up after one edited file, p99 (target under 50 ms), against reading that file;
 * - ranking and rendering the map for a request (1,024 tokens), p99 (target under 20 ms), over the graph the index
 *   keeps, after three requests that are not timed (the first ones compile the ranking's code, once per run of the
 *   app: about 30 ms and 20 ms), and making that graph again after a change;
 * - a navigation task, untimed: the tokens a scripted navigator spends to find the definition and the callers of 20
 *   symbols with the map and the symbol tools (the map for a message naming the symbol, 1,024 tokens, then find_symbol
 *   and find_references, first pages), against search and read alone (search the name, read the file of the hit that
 *   looks like the definition and up to three other files among the hits) as the baseline (target at most 0.3). The
 *   real tools, parsed and run as the runtime runs them; tokens are characters / 4 of the inputs sent and the outputs
 *   given, the map counted with each message. Each navigator's finds are checked against the index: the definition
 *   found when its place (`path:line`) was in what the navigator was given, or it read that line; a caller when it was
 *   given a place in, or read, a file the index says refers to the name. The ratio is taken over the symbols both
 *   found, so a navigator that finds nothing does not look cheap. For scale only, not the target's baseline: the same
 *   search-and-read navigator reading 30 lines either side of each hit instead of whole files.
 */

const wantedFiles = 2_500;
const packages = [
  'typescript/lib',
  'zod',
  'openai',
  '@anthropic-ai',
  'react-dom',
  'react',
  'vitest',
  'vite',
  'web-tree-sitter',
  'ignore',
  'diff',
];
const edits = 40;
const renders = 200;
/** Requests before the timing: the first ones pay for compiling the ranking's code, once per run of the app. */
const warmRenders = 3;
const opens = 8;
/** Definitions ranked for one map: more than a map of 1,024 tokens can show. */
const mapCandidates = 2_000;

/** How late the main thread's timers fire while `work` runs (the event loop's delay, sampled every 5 ms), and how long it took. */
async function mainThreadDuring(work: () => Promise<unknown>): Promise<{ p99: number; max: number; ms: number }> {
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const started = performance.now();
  await work();
  const ms = performance.now() - started;
  delay.disable();
  return { p99: delay.percentile(99) / 1e6, max: delay.max / 1e6, ms };
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** Source files under a folder, depth first, at most `limit`, smaller than 1 MB. */
function sourcesUnder(folder: string, limit: number, found: string[] = []): string[] {
  let names: string[];
  try {
    names = readdirSync(folder).sort();
  } catch {
    return found;
  }
  for (const name of names) {
    if (found.length >= limit) break;
    const path = join(folder, name);
    const info = statSync(path, { throwIfNoEntry: false });
    if (!info) continue;
    if (info.isDirectory()) sourcesUnder(path, limit, found);
    else if (info.isFile() && info.size < 1_000_000 && languageOf(name) !== null) found.push(path);
  }
  return found;
}

/** Symbols the navigation task looks for. */
const navigationSymbols = 20;
/** Caller files a search-and-read navigator reads to confirm a call, at most. */
const callerReads = 3;
/** Lines either side of a hit that a search-and-read navigator reading in windows reads (not the target's baseline). */
const readWindow = 30;
/** The map's room with a message, in tokens; 4 characters a token, as all of this task counts them. */
const navigationMapBudget = 1_024;
const navTokens = (text: string): number => Math.ceil(text.length / 4);
const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A symbol to find: its one defining file and line, and the other files that refer to it. */
interface NavigationSymbol {
  readonly name: string;
  readonly path: string;
  readonly line: number;
  readonly callers: ReadonlySet<string>;
}

/** What one navigator spent and found for one symbol. */
interface Navigation {
  readonly tokens: number;
  /** Tokens by where they went (tool outputs by tool, the map, the inputs sent). */
  readonly parts: Readonly<Record<string, number>>;
  readonly foundDefinition: boolean;
  readonly foundCaller: boolean;
}

/** Candidates of the navigation task, and the symbols picked from them. */
interface NavigationTargets {
  readonly symbols: NavigationSymbol[];
  readonly candidates: number;
  readonly files: number;
}

/**
 * The symbols of the navigation task: names defined as a function, class or method in exactly one file (at the line of
 * its first such definition there) and referred to from at least two other files. Sorted by file and name, and spread
 * over the files: as many per file as 20 symbols need (one when 20 files or more have some; each file's taken evenly
 * over its names), then 20 evenly over that list.
 */
function navigationTargets(index: CodeIndex): NavigationTargets {
  const definers = new Map<string, Map<string, number | undefined>>();
  const users = new Map<string, Set<string>>();
  for (const [path, file] of index.entries())
    for (const tag of file.tags) {
      if (tag.defines === undefined) {
        users.set(tag.name, (users.get(tag.name) ?? new Set<string>()).add(path));
        continue;
      }
      const files = definers.get(tag.name) ?? new Map<string, number | undefined>();
      const callable = tag.defines === 'function' || tag.defines === 'class' || tag.defines === 'method';
      files.set(path, files.get(path) ?? (callable ? tag.line : undefined));
      definers.set(tag.name, files);
    }
  const byFile = new Map<string, NavigationSymbol[]>();
  for (const [name, files] of definers) {
    // Names a message can name (three characters or more, as the map reads a message's identifiers).
    if (files.size !== 1 || !/^[A-Za-z_$][\w$]{2,}$/.test(name)) continue;
    const [path, line] = [...files][0] ?? [];
    if (path === undefined || line === undefined) continue;
    const callers = new Set([...(users.get(name) ?? [])].filter((user) => user !== path));
    if (callers.size >= 2) byFile.set(path, [...(byFile.get(path) ?? []), { name, path, line, callers }]);
  }
  const evenly = <T>(items: readonly T[], count: number): T[] =>
    items.length <= count ? [...items] : Array.from({ length: count }, (_, at) => items[Math.floor((at * items.length) / count)] as T);
  const perFile = Math.ceil(navigationSymbols / Math.max(1, byFile.size));
  const spread = [...byFile.keys()].sort().flatMap((path) =>
    evenly(
      (byFile.get(path) ?? []).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
      perFile,
    ),
  );
  const candidates = [...byFile.values()].reduce((sum, list) => sum + list.length, 0);
  return { symbols: evenly(spread, navigationSymbols), candidates, files: byFile.size };
}

/** A place in a tool's answer: `path:line`, and the line's text. */
interface Place {
  readonly path: string;
  readonly line: number;
  readonly text: string;
}

/** The places of a tool's answer whose lines are `path:line…` (search, find_symbol, find_references), in order. */
function placesIn(output: string): Place[] {
  const places: Place[] = [];
  for (const line of output.split('\n')) {
    const match = /^([^\s:][^:]*):(\d+)[:\s](.*)$/.exec(line);
    if (match) places.push({ path: match[1] ?? '', line: Number(match[2]), text: match[3] ?? '' });
  }
  return places;
}

/** The places a map shows: each definition's line under its file's name. */
function mapPlaces(text: string): Place[] {
  const places: Place[] = [];
  let path = '';
  for (const line of text.split('\n')) {
    const shown = /^\s*(\d+)│ (.*)$/.exec(line);
    if (shown) places.push({ path, line: Number(shown[1]), text: shown[2] ?? '' });
    else path = line.replace(/:$/, '');
  }
  return places;
}

/**
 * Runs real tools as the runtime does (parse, then execute), adding up the tokens of what is sent and given back, and
 * keeping what the navigator was given: the places (`path:line`) its answers and the map name, the files it read whole.
 */
class ToolCalls {
  readonly parts: Record<string, number> = {};
  readonly places = new Set<string>();
  readonly files = new Set<string>();
  /** The lines read of each file (first and last): a whole read as far as its answer goes. */
  readonly read: Array<{ path: string; first: number; last: number }> = [];
  private calls = 0;

  constructor(
    private readonly tools: ReadonlyMap<string, Tool>,
    private readonly workspacePath: string,
  ) {}

  /** Text the navigator is given besides tool outputs (the map with a message), and the places it names. */
  add(part: string, text: string, places: readonly Place[]): void {
    this.parts[part] = (this.parts[part] ?? 0) + navTokens(text);
    for (const place of places) {
      this.places.add(`${place.path}:${place.line}`);
      this.files.add(place.path);
    }
  }

  async call(name: string, raw: Record<string, unknown>): Promise<string> {
    const tool = this.tools.get(name);
    if (!tool) throw new Error(`no tool ${name}`);
    this.parts.inputs = (this.parts.inputs ?? 0) + navTokens(JSON.stringify(raw));
    const parsed = tool.parse(raw);
    if (!parsed.ok) throw new Error(parsed.message);
    this.calls += 1;
    let output: string;
    let failed: boolean;
    try {
      const outcome = await tool.execute(parsed.input, {
        signal: new AbortController().signal,
        sessionId: 'bench-navigation',
        toolCallId: `call-${this.calls}`,
        workspacePath: this.workspacePath,
        emitOutput: () => undefined,
      });
      output = outcome.output;
      failed = outcome.isError === true;
    } catch (error) {
      // The runtime gives the model a failed call's message as its output.
      output = error instanceof Error ? error.message : String(error);
      failed = true;
    }
    if (name === 'read_file') {
      this.add(name, output, []);
      if (!failed && typeof raw.path === 'string') {
        // A range comes with a line of its own before it; a whole read cut short ends with a line that says so.
        const first = typeof raw.startLine === 'number' ? raw.startLine : 1;
        const lines = output.split('\n').length - 1;
        this.read.push({ path: raw.path, first, last: first + lines - 1 });
        this.files.add(raw.path);
      }
    } else this.add(name, output, placesIn(output));
    return output;
  }

  /**
   * What the navigator spent, and whether it was given the definition (its place, or its line read) and a caller (a
   * place in, or a read of, a file the index says refers to the name).
   */
  outcome(symbol: NavigationSymbol): Navigation {
    return {
      tokens: Object.values(this.parts).reduce((sum, value) => sum + value, 0),
      parts: this.parts,
      foundDefinition:
        this.places.has(`${symbol.path}:${symbol.line}`) ||
        this.read.some((range) => range.path === symbol.path && range.first <= symbol.line && symbol.line <= range.last),
      foundCaller: [...symbol.callers].some((path) => this.files.has(path)),
    };
  }
}

/**
 * Navigator A, search and read alone: searches the name (the tool's defaults: a regular expression, any letter case, the
 * first 200 matches), reads the file of the first hit that looks like a definition, and reads up to three other files
 * among the hits to confirm a call, those whose hit is the name itself (whole, in its letter case) first. A definition's
 * look, best first: a keyword before the name (`function name`, `class name`); the name first on its line (after
 * modifiers) before `(`, as a method is declared; the name, not after a `.`, before `(`, `:` or `=`; else the first hit.
 * With `around`, each file is read only in the lines that far around its hit, not whole.
 */
async function searchAndRead(calls: ToolCalls, symbol: NavigationSymbol, around: number | null): Promise<Navigation> {
  const name = escapeRegex(symbol.name);
  const hits = placesIn(await calls.call('search', { pattern: name }));
  const generic = '(?:<[^>]*>)?';
  const looks = [
    new RegExp(`\\b(?:function\\*?|class|def|interface|type|enum|namespace|const|let|var)\\s+${name}(?![\\w$])`),
    new RegExp(
      `^\\s*(?:(?:export|declare|default|static|async|public|private|protected|readonly|abstract|override|get|set)\\s+)*${name}\\s*${generic}\\s*\\(`,
    ),
    new RegExp(`(?<![\\w$.])${name}\\s*${generic}\\s*[(:=]`),
  ];
  const definition = looks.map((look) => hits.find((hit) => look.test(hit.text))).find((hit) => hit !== undefined) ?? hits[0];
  const whole = new RegExp(`(?<![\\w$])${name}(?![\\w$])`);
  const others = [...hits.filter((hit) => whole.test(hit.text)), ...hits]
    .filter((hit, at, all) => hit.path !== definition?.path && all.findIndex((other) => other.path === hit.path) === at)
    .slice(0, callerReads);
  for (const hit of [...(definition ? [definition] : []), ...others])
    await calls.call(
      'read_file',
      around === null ? { path: hit.path } : { path: hit.path, startLine: Math.max(1, hit.line - around), endLine: hit.line + around },
    );
  return calls.outcome(symbol);
}

/**
 * Navigator B, the map and the symbol tools: the map given with the message, then find_symbol and find_references (first
 * pages). Says too whether the map alone showed the definition.
 */
async function mapAndSymbols(
  calls: ToolCalls,
  maps: RepositoryMaps,
  root: string,
  symbol: NavigationSymbol,
): Promise<Navigation & { mapShowed: boolean }> {
  const map = await maps.render({
    workspacePath: root,
    chatFiles: [],
    attachedFiles: [],
    message: `Where is ${symbol.name} defined and who calls it?`,
    budget: navigationMapBudget,
    tokens: (chars) => Math.ceil(chars / 4),
    signal: new AbortController().signal,
  });
  if (map.kind !== 'map') throw new Error(`no map for the navigation task: ${JSON.stringify(map)}`);
  const shown = mapPlaces(map.text);
  calls.add('map', map.text, shown);
  await calls.call('find_symbol', { name: symbol.name });
  await calls.call('find_references', { name: symbol.name });
  return {
    ...calls.outcome(symbol),
    mapShowed: shown.some((place) => place.path === symbol.path && place.line === symbol.line),
  };
}

interface NavigationFigures {
  readonly lines: string[];
  readonly json: Record<string, number>;
}

/**
 * The navigation task over the workspace at `root`, with the real tools over an index of their own. The search is the
 * built-in one: ripgrep stops at 200 matches in the order its threads find them, so which 200 a frequent name gets
 * differs from run to run; the built-in search takes the first 200 in path order, the same each run.
 */
async function navigationTask(root: string): Promise<NavigationFigures> {
  const filesIn = (workspacePath: string): WorkspaceFiles => new WorkspaceFiles(workspacePath);
  const filesOf: FilesOf = (context) => filesIn(workspaceOf(context));
  const codeMaps = new CodeMaps({ dataDir: null, filesOf: filesIn });
  const index = codeMaps.of(root);
  // Indexed before the task, as an app that has had the workspace open for a while has it: the map is never "indexing".
  await index.refresh();
  const maps = new RepositoryMaps({ maps: codeMaps });
  const tools = new Map(
    [readFileTool(filesOf), searchTool(filesOf, null), ...symbolTools(filesOf, codeMaps)].map((tool) => [tool.name, tool]),
  );
  const targets = navigationTargets(index);
  const rows: Array<{ symbol: NavigationSymbol; a: Navigation; windowed: Navigation; b: Navigation & { mapShowed: boolean } }> = [];
  for (const symbol of targets.symbols)
    rows.push({
      symbol,
      a: await searchAndRead(new ToolCalls(tools, root), symbol, null),
      windowed: await searchAndRead(new ToolCalls(tools, root), symbol, readWindow),
      b: await mapAndSymbols(new ToolCalls(tools, root), maps, root, symbol),
    });
  type Row = (typeof rows)[number];
  const found = (run: Navigation): boolean => run.foundDefinition && run.foundCaller;
  const sum = (values: number[]): number => values.reduce((total, value) => total + value, 0);
  const count = (value: number): string => value.toLocaleString('en');
  const missed = (run: Navigation): string => {
    const lacks = [...(run.foundDefinition ? [] : ['no definition']), ...(run.foundCaller ? [] : ['no caller'])];
    return lacks.length === 0 ? '' : ` (found ${lacks.join(', ')})`;
  };
  /** Found counts, the total over all symbols, and the tokens by part. */
  const summary = (pick: (row: Row) => Navigation): string => {
    const runs = rows.map(pick);
    const parts: Record<string, number> = {};
    for (const run of runs) for (const [part, value] of Object.entries(run.parts)) parts[part] = (parts[part] ?? 0) + value;
    const byPart = Object.entries(parts).map(([part, value]) => `${part} ${count(value)}`);
    return (
      `found the definition for ${runs.filter((run) => run.foundDefinition).length}, a caller for ${runs.filter((run) => run.foundCaller).length}, ` +
      `both for ${runs.filter(found).length} of ${rows.length}; ${count(sum(runs.map((run) => run.tokens)))} tokens over all (${byPart.join(', ')})`
    );
  };
  /** The map and symbol tools against a baseline, over the symbols both found. */
  const against = (pick: (row: Row) => Navigation): { symbols: number; baseline: number; ours: number; ratio: number } => {
    const both = rows.filter((row) => found(pick(row)) && found(row.b));
    const baseline = sum(both.map((row) => pick(row).tokens));
    const ours = sum(both.map((row) => row.b.tokens));
    return { symbols: both.length, baseline, ours, ratio: baseline === 0 ? Number.NaN : ours / baseline };
  };
  const whole = against((row) => row.a);
  const windowed = against((row) => row.windowed);
  const lines = [
    `navigation: the definition and a caller of ${rows.length} symbols (of ${targets.candidates} defined in one file and used from 2 or more others, in ${targets.files} files); tokens = characters / 4 of what each navigator sent and was given; the built-in search; found = given the definition's place or line, and a place in or a read of a file the index says refers to the name`,
    ...rows.map(
      ({ symbol, a, windowed, b }) =>
        `  ${symbol.name} (${symbol.path}:${symbol.line}, used in ${symbol.callers.size} other files): search and read ${count(a.tokens)}${missed(a)}, ` +
        `in windows ${count(windowed.tokens)}${missed(windowed)}; map and symbol tools ${count(b.tokens)} (map ${b.parts.map ?? 0}${b.mapShowed ? ', showing the definition' : ''}, ` +
        `find_symbol ${b.parts.find_symbol ?? 0}, find_references ${b.parts.find_references ?? 0})${missed(b)}`,
    ),
    `  search and read alone (the baseline; files read whole): ${summary((row) => row.a)}`,
    `  map and symbol tools: ${summary((row) => row.b)}; the map alone showed the definition for ${rows.filter((row) => row.b.mapShowed).length}`,
    `  over the ${whole.symbols} symbols both found: search and read ${count(whole.baseline)} tokens, map and symbol tools ${count(whole.ours)}: ratio ${whole.ratio.toFixed(3)} (target at most 0.3)`,
    `  not the target's baseline, for scale: search and read in windows (${readWindow} lines either side of each hit) ${summary((row) => row.windowed)}; ` +
      `over the ${windowed.symbols} symbols both found ${count(windowed.baseline)} tokens against ${count(windowed.ours)}: ratio ${windowed.ratio.toFixed(3)}`,
  ];
  return {
    lines,
    json: {
      navigation_symbols: rows.length,
      navigation_found_both: whole.symbols,
      navigation_search_read_tokens: whole.baseline,
      navigation_map_symbols_tokens: whole.ours,
      navigation_ratio: Number(whole.ratio.toFixed(3)),
      navigation_windowed_ratio: Number(windowed.ratio.toFixed(3)),
    },
  };
}

export async function runCodeMapBench(): Promise<void> {
  const folder = temporaryFolder('workbench-bench-code-map-');
  try {
    const modules = join(process.cwd(), 'node_modules');
    const root = join(folder.path, 'ws');
    const picked: string[] = [];
    for (const name of packages) sourcesUnder(join(modules, name), wantedFiles, picked);
    for (const source of picked) {
      const target = join(root, relative(modules, source));
      mkdirSync(dirname(target), { recursive: true });
      copyFileSync(source, target);
    }
    const reader = () => new WorkspaceFiles(root).reader();
    const realRoot = reader().root;
    const cacheFile = join(folder.path, 'data', 'code-map.json');
    const tagger = new Tagger();
    const index = (): CodeIndex => new CodeIndex({ root: realRoot, reader, tagger, cacheFile });

    // Baseline: the same files' bytes read, nothing else.
    const readStarted = performance.now();
    let bytes = 0;
    for (const source of picked) bytes += readFileSync(join(root, relative(modules, source))).length;
    const readMs = performance.now() - readStarted;

    // Grammars loaded before the clock starts: a cost paid once per app run, not per file.
    for (const language of ['a.ts', 'a.js', 'a.tsx']) await tagger.tag(language, '');
    const coldStarted = performance.now();
    const cold = index();
    const first = await cold.refresh();
    const coldMs = performance.now() - coldStarted;

    const openTimes: number[] = [];
    for (let run = 0; run < opens; run += 1) {
      const started = performance.now();
      const reopened = index();
      const refreshed = await reopened.refresh();
      openTimes.push(performance.now() - started);
      if (refreshed.read !== 0) throw new Error(`a cached start read ${refreshed.read} files`);
    }

    const editTimes: number[] = [];
    const readOneTimes: number[] = [];
    const files = cold.entries().map(([path]) => path);
    for (let edit = 0; edit < edits; edit += 1) {
      const path = files[(edit * 37) % files.length] ?? '';
      const absolute = join(realRoot, path);
      writeFileSync(absolute, `${readFileSync(absolute, 'utf8')}\nexport function edited${edit}() {}\n`);
      const readStart = performance.now();
      readFileSync(absolute);
      readOneTimes.push(performance.now() - readStart);
      const started = performance.now();
      await cold.update([path]);
      editTimes.push(performance.now() - started);
    }

    const renderTimes: number[] = [];
    const rankTimes: number[] = [];
    const entries = cold.entries();
    // The graph is made once per state of the index (after an edit, at the next request): timed on its own.
    const graphStarted = performance.now();
    const graph = cold.graph();
    const graphMs = performance.now() - graphStarted;
    const tokens = (text: string): number => Math.ceil(text.length / 3.5);
    let rendered = '';
    for (let run = -warmRenders; run < renders; run += 1) {
      const chat = new Set([entries[(Math.abs(run) * 13) % entries.length]?.[0] ?? '']);
      const started = performance.now();
      const ranked = graph.rank({ chatFiles: chat, mentionedNames: new Set(['parse', 'createProgram']) }, mapCandidates);
      const rankedMs = performance.now() - started;
      rendered = renderMap(ranked, 1024, tokens);
      if (run < 0) continue;
      rankTimes.push(rankedMs);
      renderTimes.push(performance.now() - started);
    }

    // The app's main thread during a first index: how late a timer fires (the event loop's delay), with the files
    // tagged on the tagging thread as the app does, against the same index tagged on the main thread itself.
    const threaded = new WorkerTagger(sourceTagWorker());
    await threaded.tag('warm.ts', 'export const warm = 1;');
    const onThread = await mainThreadDuring(() => new CodeIndex({ root: realRoot, reader, tagger: threaded, cacheFile: null }).refresh());
    await threaded.dispose();
    const onMain = await mainThreadDuring(() => new CodeIndex({ root: realRoot, reader, tagger, cacheFile: null }).refresh());

    // Untimed, after the timings: an index of the tools' own over the same files, as the app's tools and map share one.
    const navigation = await navigationTask(root);

    const filesPerSecond = (first.read / coldMs) * 1000;
    console.log(
      `first index: ${first.read} files (${Math.round(bytes / 1024)} KB) in ${Math.round(coldMs)} ms, ${Math.round(filesPerSecond)} files/s; reading their bytes alone ${Math.round(readMs)} ms (ratio ${(coldMs / readMs).toFixed(1)})`,
    );
    console.log(
      `a later start, from the cache: p50 ${percentile(openTimes, 50).toFixed(1)} ms, p99 ${percentile(openTimes, 99).toFixed(1)} ms over ${opens}`,
    );
    console.log(
      `after one edit: p50 ${percentile(editTimes, 50).toFixed(2)} ms, p99 ${percentile(editTimes, 99).toFixed(2)} ms (target under 50 ms); reading that file alone p99 ${percentile(readOneTimes, 99).toFixed(2)} ms`,
    );
    console.log(
      `the map for a request (1,024 tokens, ${rendered.split('\n').length} lines; ${renders} requests after ${warmRenders} not timed): p50 ${percentile(renderTimes, 50).toFixed(2)} ms, p99 ${percentile(renderTimes, 99).toFixed(2)} ms (target under 20 ms), of it ranking p50 ${percentile(rankTimes, 50).toFixed(2)} ms; the graph after a change ${graphMs.toFixed(1)} ms`,
    );
    console.log(
      `the main thread during a first index, files tagged on the tagging thread: timers late by p99 ${onThread.p99.toFixed(1)} ms, at most ${onThread.max.toFixed(1)} ms (the index took ${Math.round(onThread.ms)} ms); tagged on the main thread itself: p99 ${onMain.p99.toFixed(1)} ms, at most ${onMain.max.toFixed(1)} ms (${Math.round(onMain.ms)} ms); ratio of p99 ${(onThread.p99 / onMain.p99).toFixed(2)}`,
    );
    for (const line of navigation.lines) console.log(line);
    console.log(
      JSON.stringify({
        bench: 'code-map',
        files: first.read,
        cold_ms: Math.round(coldMs),
        files_per_second: Math.round(filesPerSecond),
        cold_over_read: Number((coldMs / readMs).toFixed(2)),
        cached_open_p99_ms: Number(percentile(openTimes, 99).toFixed(2)),
        edit_update_p99_ms: Number(percentile(editTimes, 99).toFixed(2)),
        map_render_p99_ms: Number(percentile(renderTimes, 99).toFixed(2)),
        graph_ms: Number(graphMs.toFixed(1)),
        main_thread_delay_p99_ms_threaded: Number(onThread.p99.toFixed(1)),
        main_thread_delay_p99_ms_unthreaded: Number(onMain.p99.toFixed(1)),
        ...navigation.json,
      }),
    );
  } finally {
    folder.remove();
  }
}
