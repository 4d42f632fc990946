/*
 * Walks a parsed command line statement by statement, following what it runs (pipes, substitutions, `sh -c`,
 * functions), to judge it as a whole.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { maxRisk, type RiskLevel } from '../../shared/domain';
import { ShellSyntaxError, type BashParser, type SyntaxNode } from './bash-parser';
import { afterBuiltin, changedFolder, changesFolder, holdsOutput, isName, loaderVariables } from './builtin-effects';
import { argOf, type Arg, type Finding } from './command-args';
import type { CommandPlace, RepositoryProgram, TargetJudge } from './command-targets';
import { programOf, programRisk, type ProgramSite } from './program-risk';
import { runnerRisk, summarize, type CommandRisk } from './runner-risk';
import { clip, programName, readsCode, redirect, type ScriptSite } from './script-io';
import { LineFunctions } from './line-functions';
import { ShellState, type ShellValue, type WordValue } from './shell-state';
import { TargetLookup } from './target-lookup';
import { evaluate, evaluatesIndirection, indirectionRisk, type WordEnvironment } from './shell-words';
import { wordEffects, type WordEffects } from './word-effects';

export type { CommandRisk } from './runner-risk';

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** How deep commands that run commands (`sh -c "eval '…'"`) are followed before the line counts as destructive. */
const maxDepth = 6;

/** How deep statements may nest (`{ { { …`, `$( $( …`) before the line counts as destructive rather than walked further. */
const maxNesting = 150;

/**
 * Walks one parsed command line the way bash would run it, keeping what is known of the folder and the
 * variables as it goes, and collects what each part risks. Every command runs in the analysis, the ones in
 * substitutions, pipelines, loops and function bodies included.
 */
class ScriptWalk implements ScriptSite {
  readonly findings: Finding[] = [];
  /** Functions the line defines, by name: a call runs the body there, in this shell. */
  private readonly functions = new LineFunctions({
    runBody: (definition, state) => this.runFunctionBody(definition, state),
    add: (level, reason) => this.add(level, reason),
  });
  private nesting = 0;
  private readonly targets: TargetLookup;

  constructor(
    private readonly parser: BashParser,
    private readonly judge: TargetJudge,
    private readonly place: CommandPlace,
    readonly environment: WordEnvironment,
    private readonly depth: number,
  ) {
    this.targets = new TargetLookup(judge, place);
  }

  add(level: RiskLevel, reason: string): void {
    this.findings.push({ level, reason });
  }

  addAll(findings: readonly Finding[]): void {
    this.findings.push(...findings);
  }

  private apply(effects: WordEffects): ShellState {
    this.addAll(effects.findings);
    return effects.state;
  }

  /** Statements in order; a `&` after one makes it a background job. */
  sequence(node: SyntaxNode, state: ShellState, skip: (child: SyntaxNode) => boolean = () => false): ShellState {
    let current = state;
    for (const child of node.children) {
      if (!child) continue;
      if (child.type === '&') this.add('write_high', 'a background job keeps running after the call');
      else if (child.isNamed && !skip(child)) current = this.visit(child, current);
    }
    return current;
  }

  /**
   * Runs one node. `trailing` are redirections the grammar hangs on a whole list or pipeline (`a && b > f`)
   * that bash applies to its last command.
   */
  visit(node: SyntaxNode, state: ShellState, trailing: readonly SyntaxNode[] = []): ShellState {
    if (this.nesting >= maxNesting) {
      this.add('destructive', 'commands nested too deep to judge');
      return state.forgetVariables().withCwd(null);
    }
    this.nesting += 1;
    try {
      return this.visitNode(node, state, trailing);
    } finally {
      this.nesting -= 1;
    }
  }

  private visitNode(node: SyntaxNode, state: ShellState, trailing: readonly SyntaxNode[]): ShellState {
    switch (node.type) {
      case 'program':
      case 'do_group':
        return this.sequence(node, state);
      case 'compound_statement':
        if (node.child(0)?.type === '((') {
          this.substitutions(node, state);
          return this.apply(wordEffects([node], state, this.environment));
        }
        return this.sequence(node, state);
      case 'comment':
        return state;
      case 'subshell':
        this.sequence(node, state);
        return state;
      case 'function_definition':
        return this.functions.define(node, state);
      case 'list': {
        // `a && b`: b may not run, so what it changes is only one of the possibilities after.
        const parts = node.namedChildren.filter((child): child is SyntaxNode => child !== null);
        const last = parts.at(-1);
        let current = parts[0] ? this.visit(parts[0], state, parts[0] === last ? trailing : []) : state;
        for (const part of parts.slice(1)) current = current.join(this.visit(part, current, part === last ? trailing : []));
        return current;
      }
      case 'pipeline':
        this.pipeline(node, state, trailing);
        return state;
      case 'negated_command':
        return this.sequence(node, state);
      case 'redirected_statement': {
        const body = node.childForFieldName('body');
        const redirects = [...node.childrenForFieldName('redirect'), ...trailing];
        if (body && ['command', 'list', 'pipeline', 'redirected_statement'].includes(body.type)) return this.visit(body, state, redirects);
        for (const item of redirects) redirect(this, item, state, null);
        return body ? this.visit(body, state) : state;
      }
      case 'command':
        return this.command(node, state, trailing);
      case 'variable_assignment':
        return this.assign(node, state);
      case 'variable_assignments':
      case 'declaration_command':
        return this.declare(node, state);
      case 'unset_command': {
        this.substitutions(node, state);
        let after = state;
        for (const child of node.namedChildren) if (child && isName(child.text)) after = after.withVar(child.text, null);
        return after;
      }
      case 'if_statement':
        return this.branches(node, state);
      case 'while_statement':
      case 'until_statement':
        return state.join(this.sequence(node, state));
      case 'c_style_for_statement': {
        const body = node.childForFieldName('body');
        const heads = node.namedChildren.filter((child): child is SyntaxNode => child !== null && child.id !== body?.id);
        for (const head of heads) this.substitutions(head, state);
        const inLoop = this.apply(wordEffects(heads, state, this.environment, true));
        return state.join(body ? this.visit(body, inLoop) : inLoop);
      }
      case 'for_statement':
      case 'select_statement':
        return this.forLoop(node, state);
      case 'case_statement':
        return this.caseStatement(node, state);
      default:
        this.substitutions(node, state);
        return this.apply(wordEffects([node], state, this.environment));
    }
  }

  /** A function's body and the redirections of its definition, run from `state`. */
  private runFunctionBody(definition: SyntaxNode, state: ShellState): void {
    const body = definition.childForFieldName('body');
    if (body) this.visit(body, state);
    for (const item of definition.childrenForFieldName('redirect')) redirect(this, item, state, null);
  }

  /** if/elif/else: each branch from the state before it; the result can be any branch's, or none ran. */
  private branches(node: SyntaxNode, state: ShellState): ShellState {
    const clauses = node.namedChildren.filter(
      (child): child is SyntaxNode => child?.type === 'elif_clause' || child?.type === 'else_clause',
    );
    let after = this.sequence(node, state, (child) => child.type === 'elif_clause' || child.type === 'else_clause');
    for (const clause of clauses) after = after.join(this.sequence(clause, state));
    return clauses.some((clause) => clause.type === 'else_clause') ? after : after.join(state);
  }

  private caseStatement(node: SyntaxNode, state: ShellState): ShellState {
    const value = node.childForFieldName('value');
    if (value) this.substitutions(value, state);
    let after = value ? this.apply(wordEffects([value], state, this.environment)) : state;
    const start = after;
    for (const item of node.namedChildren) {
      if (item?.type !== 'case_item') continue;
      const patterns = item.childrenForFieldName('value');
      for (const pattern of patterns) this.substitutions(pattern, start);
      after = after.join(this.sequence(item, start, (child) => patterns.some((pattern) => pattern.id === child.id)));
    }
    return after;
  }

  private forLoop(node: SyntaxNode, state: ShellState): ShellState {
    const name = node.childForFieldName('variable')?.text;
    const words = node.childrenForFieldName('value');
    for (const word of words) this.substitutions(word, state);
    const values = words.map((word) => evaluate(word, state, this.environment));
    const known = words.length > 0 && values.every((value) => value.kind === 'known');
    const before = this.apply(wordEffects(words, state, this.environment));
    const inLoop = name
      ? before.withVar(name, known ? values.flatMap((value) => (value.kind === 'known' ? value.values : [])) : null, !known)
      : before;
    const body = node.childForFieldName('body');
    return before.join(body ? this.visit(body, inLoop) : inLoop);
  }

  private assign(node: SyntaxNode, state: ShellState): ShellState {
    const name = node.childForFieldName('name')?.text;
    const value = node.childForFieldName('value');
    if (value) this.substitutions(value, state);
    const after = value ? this.apply(wordEffects([value], state, this.environment)) : state;
    if (!name) return after;
    if (/^(PATH|LD_\w+|DYLD_\w+|BASH_ENV|ENV|PROMPT_COMMAND)$/.test(name))
      this.add('write_high', `${name}=… changes what later programs load or run`);
    if (node.children.some((child) => child?.type === '+=')) return after.withVar(name, null);
    const evaluated: WordValue = value ? evaluate(value, state, this.environment) : { kind: 'known', values: [{ text: '', glob: false }] };
    // Patterns are not expanded in an assignment: the value is the text.
    const values = evaluated.kind === 'known' ? evaluated.values.map((item): ShellValue => ({ text: item.text, glob: false })) : null;
    return after.withVar(name, values, value !== null && holdsOutput(value));
  }

  /** `declare`, `local`, `export`, `readonly`: assignments, names made empty or unknown, and namerefs (`-n`). */
  private declare(node: SyntaxNode, state: ShellState): ShellState {
    const keyword = node.child(0)?.type ?? '';
    let current = state;
    for (const child of node.namedChildren) {
      if (!child) continue;
      if (child.type === 'variable_assignment') current = this.assign(child, current);
      else if (['declare', 'typeset', 'local'].includes(keyword) && /^-[A-Za-z]*n/.test(child.text)) current = current.withAliases();
      else if (isName(child.text)) current = current.withVar(child.text, null);
      else {
        this.substitutions(child, current);
        current = this.apply(wordEffects([child], current, this.environment));
      }
    }
    return current;
  }

  /**
   * The command lines inside `$(…)`, backticks and `<(…)` in a node: they run too. So may one in an indirect
   * expansion's variable (see `evaluatesIndirection`), which is only known when it runs.
   */
  substitutions(node: SyntaxNode, state: ShellState): void {
    const stack: SyntaxNode[] = [node];
    while (stack.length > 0) {
      const current = stack.pop() as SyntaxNode;
      if (current.type === 'expansion' && evaluatesIndirection(current.text)) {
        const risk = indirectionRisk(current, state, this.environment);
        if (risk) this.add(risk.level, risk.reason);
      }
      if (current.type === 'command_substitution' || current.type === 'process_substitution') {
        this.sequence(current, state);
        // `>(sh)`: what the outer command writes there is read as code.
        const first = current.namedChildren[0];
        const reader = first?.type === 'pipeline' ? first.namedChildren[0] : first;
        if (current.text.startsWith('>(') && reader) readsCode(this, reader, state, 'a process substitution');
        continue;
      }
      for (const child of current.namedChildren) if (child) stack.push(child);
    }
  }

  private pipeline(node: SyntaxNode, state: ShellState, trailing: readonly SyntaxNode[]): void {
    const members = node.namedChildren.filter((child): child is SyntaxNode => child !== null);
    members.forEach((member, index) => {
      this.visit(member, state, index === members.length - 1 ? trailing : []);
      if (index > 0) readsCode(this, member, state, 'the pipe');
    });
  }

  /** What writing to a path means, by where each of its possible values lands. */
  targetFindings(arg: Arg, verb: string, state: ShellState, from?: Arg): Finding[] {
    return this.targets.findings(arg, verb, state, from);
  }

  /** A command line run by this one: judged like the whole line, and never less than running code. */
  nested(text: string | null, what: string): Finding[] {
    if (text === null) return [{ level: 'destructive', reason: `${what} runs a command only known when it runs` }];
    if (this.depth >= maxDepth) return [{ level: 'destructive', reason: 'commands nested too deep to judge' }];
    const inner = walkScript(this.parser, text, this.judge, this.place, this.environment, this.depth + 1);
    return [{ level: maxRisk([inner.level, 'write_high']), reason: `${what} runs code: ${inner.reasons.join('; ') || 'a command'}` }];
  }

  /** The programs of the repository (or repositories: the folder may be one of several) a git command works in. */
  private repositoryPrograms(state: ShellState, at: Arg | undefined): readonly RepositoryProgram[] | null {
    const lookup = this.place.repositoryPrograms;
    if (!lookup) return [];
    const folders = state.cwd;
    if (folders === null) return null;
    const given = at === undefined ? null : at.value.kind === 'known' ? at.value.values.map((value) => value.text) : undefined;
    if (given === undefined) return null;
    const places = given === null ? folders : folders.flatMap((folder) => given.map((text) => resolve(folder, text)));
    // A folder not there yet (made earlier in the line, say) cannot be read now: what it would run is unknown.
    if (places.some((folder) => !isFolder(folder))) return null;
    return places.flatMap((folder) => lookup(folder));
  }

  private site(state: ShellState): ProgramSite {
    return {
      target: (arg, verb, from) => this.targetFindings(arg, verb, state, from),
      nested: (text, what) => this.nested(text, what),
      runs: (words, what) => runnerRisk(words, what, this.site(state), this.depth >= maxDepth),
      repositoryPrograms: (at) => this.repositoryPrograms(state, at),
      sandboxed: this.place.sandbox !== null,
      ...(this.place.untrusted ? { untrusted: true } : {}),
    };
  }

  private command(node: SyntaxNode, state: ShellState, outer: readonly SyntaxNode[]): ShellState {
    for (const child of node.namedChildren) if (child && child.type !== 'command_name') this.substitutions(child, state);
    const nameNode = node.childForFieldName('name');
    if (nameNode) this.substitutions(nameNode, state);
    // `${x:=…}` and arithmetic in the words set variables for what follows; the words themselves expand before.
    let after = this.apply(wordEffects([node], state, this.environment));
    for (const assignment of node.namedChildren) {
      const name = assignment?.type === 'variable_assignment' ? assignment.childForFieldName('name')?.text : undefined;
      if (name && loaderVariables.test(name)) this.add('write_high', `${name}=… changes what the program loads or runs`);
    }
    const redirects = [
      ...node.namedChildren.filter((child): child is SyntaxNode => child !== null && /redirect$/.test(child.type)),
      ...outer,
    ];
    if (!nameNode) {
      for (const item of redirects) redirect(this, item, state, null);
      return after;
    }
    const name = programName(nameNode, state, this.environment);
    if (name.kind === 'computed') {
      for (const item of redirects) redirect(this, item, state, null);
      this.add('destructive', `the program name is only known when it runs (${clip(nameNode.text)})`);
      return after.forgetVariables().withCwd(null);
    }
    const argNodes = [
      ...node.childrenForFieldName('argument'),
      ...redirects.flatMap((item) => (item.type === 'heredoc_redirect' ? item.childrenForFieldName('argument') : [])),
    ];
    const args = argNodes.map((arg) => argOf(evaluate(arg, state, this.environment), arg.text));
    for (const value of name.values) {
      const program = programOf(value.text);
      for (const item of redirects) redirect(this, item, state, program);
      if (changesFolder(program)) {
        this.add('read_only', `${program} changes the folder`);
        after = changedFolder(program, args, after, this.environment);
        continue;
      }
      if (this.functions.has(program)) {
        after = this.functions.call(program, after);
        continue;
      }
      this.addAll(programRisk(program, args, this.site(state)));
      after = this.apply(afterBuiltin(program, args, after, this.environment));
    }
    return after;
  }
}

/** The risk of one command line: parsed, walked from the workspace, every finding kept; a line that cannot be parsed is destructive. */
export function walkScript(
  parser: BashParser,
  command: string,
  judge: TargetJudge,
  place: CommandPlace,
  environment: WordEnvironment,
  depth: number,
): CommandRisk {
  try {
    return parser.parse(command, (root) => {
      const walk = new ScriptWalk(parser, judge, place, environment, depth);
      walk.visit(root, ShellState.start(place.workspace === null ? null : resolve(place.workspace)));
      return summarize(walk.findings);
    });
  } catch (error) {
    if (error instanceof ShellSyntaxError) return { level: 'destructive', reasons: [`the command cannot be judged: ${error.message}`] };
    // A line nested past what the stack holds: never judged safe.
    if (error instanceof RangeError) return { level: 'destructive', reasons: ['the command cannot be judged: it is nested too deep'] };
    throw error;
  }
}
