import { homedir, userInfo } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { maxRisk, type RiskLevel } from '../../shared/domain';
import { BashParser, ShellSyntaxError, type SyntaxNode } from './bash-parser';
import { argOf, type Arg, type Finding } from './command-args';
import { TargetJudge, type CommandPlace } from './command-targets';
import { interpreters, runnerOptionValues, runners, shells } from './program-sets';
import { programOf, programRisk, type ProgramSite } from './program-risk';
import { ShellState, type WordValue } from './shell-state';
import { evaluate, onlyText, type WordEnvironment } from './shell-words';

export type { CommandPlace } from './command-targets';

export interface CommandRisk {
  readonly level: RiskLevel;
  readonly reasons: readonly string[];
}

/** How deep commands that run commands (`sh -c "eval '…'"`) are followed before the line counts as destructive. */
const maxDepth = 6;

/** Variables that change what a program loads or runs when set in front of it. */
const loaderVariables =
  /^(PATH|LD_\w+|DYLD_\w+|BASH_ENV|ENV|SHELLOPTS|BASHOPTS|PS4|PROMPT_COMMAND|IFS|PYTHONPATH|PYTHONSTARTUP|NODE_OPTIONS|NODE_PATH|PERL5OPT|PERL5LIB|RUBYOPT|GIT_\w+|EDITOR|VISUAL|PAGER)$/;

/** What a here-document itself is made of; anything else in its node is more of the command line. */
const heredocParts = new Set([
  'heredoc_start',
  'heredoc_body',
  'heredoc_end',
  'heredoc_content',
  'file_redirect',
  'word',
  'string',
  'raw_string',
  'concatenation',
  'simple_expansion',
  'expansion',
]);

const writeOperators = new Set(['>', '>>', '>|', '&>', '&>>', '<>', '>&', '&>|']);

const clip = (text: string, length = 60): string => (text.length > length ? `${text.slice(0, length)}…` : text);

/**
 * Walks one parsed command line the way bash would run it, keeping what is known of the folder and the
 * variables as it goes, and collects what each part risks. Every command runs in the analysis, the ones in
 * substitutions, pipelines, loops and function bodies included.
 */
class ScriptWalk {
  readonly findings: Finding[] = [];
  /** Functions the line defines: calling one runs code that can change the folder. */
  private readonly functions = new Set<string>();

  constructor(
    private readonly parser: BashParser,
    private readonly judge: TargetJudge,
    private readonly place: CommandPlace,
    private readonly environment: WordEnvironment,
    private readonly depth: number,
  ) {}

  private add(level: RiskLevel, reason: string): void {
    this.findings.push({ level, reason });
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
    switch (node.type) {
      case 'program':
      case 'compound_statement':
      case 'do_group':
        return this.sequence(node, state);
      case 'comment':
        return state;
      case 'subshell':
        this.sequence(node, state);
        return state;
      case 'function_definition': {
        const name = node.childForFieldName('name')?.text;
        if (name) this.functions.add(name);
        // The body runs when the function is called, with the redirections written after it.
        const body = node.childForFieldName('body');
        if (body) this.visit(body, state);
        for (const redirect of node.childrenForFieldName('redirect')) this.redirect(redirect, state, null);
        return state;
      }
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
        for (const redirect of redirects) this.redirect(redirect, state, null);
        return body ? this.visit(body, state) : state;
      }
      case 'command':
        return this.command(node, state, trailing);
      case 'variable_assignment':
        return this.assign(node, state);
      case 'variable_assignments':
      case 'declaration_command': {
        let current = state;
        for (const child of node.namedChildren) {
          if (child?.type === 'variable_assignment') current = this.assign(child, current);
          else if (child) this.substitutions(child, current);
        }
        return current;
      }
      case 'if_statement':
        return this.branches(node, state);
      case 'while_statement':
      case 'until_statement':
      case 'c_style_for_statement':
        return state.join(this.sequence(node, state));
      case 'for_statement':
      case 'select_statement':
        return this.forLoop(node, state);
      case 'case_statement': {
        const value = node.childForFieldName('value');
        if (value) this.substitutions(value, state);
        let after = state;
        for (const item of node.namedChildren) {
          if (item?.type !== 'case_item') continue;
          for (const pattern of item.childrenForFieldName('value')) this.substitutions(pattern, state);
          after = after.join(
            this.sequence(item, state, (child) => item.childrenForFieldName('value').some((pattern) => pattern.id === child.id)),
          );
        }
        return after;
      }
      default:
        this.substitutions(node, state);
        return state;
    }
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

  private forLoop(node: SyntaxNode, state: ShellState): ShellState {
    const name = node.childForFieldName('variable')?.text;
    const words = node.childrenForFieldName('value');
    for (const word of words) this.substitutions(word, state);
    const values = words.map((word) => evaluate(word, state, this.environment));
    const known = words.length > 0 && values.every((value) => value.kind === 'known');
    const inLoop = name
      ? state.withVar(name, known ? values.flatMap((value) => (value.kind === 'known' ? value.values : [])) : null)
      : state;
    const body = node.childForFieldName('body');
    return state.join(body ? this.visit(body, inLoop) : inLoop);
  }

  private assign(node: SyntaxNode, state: ShellState): ShellState {
    const name = node.childForFieldName('name')?.text;
    const value = node.childForFieldName('value');
    if (value) this.substitutions(value, state);
    if (!name) return state;
    if (/^(PATH|LD_\w+|DYLD_\w+|BASH_ENV|ENV|PROMPT_COMMAND)$/.test(name))
      this.add('write_high', `${name}=… changes what later programs load or run`);
    if (node.children.some((child) => child?.type === '+=')) return state.withVar(name, null);
    const evaluated: WordValue = value ? evaluate(value, state, this.environment) : { kind: 'known', values: [{ text: '', glob: false }] };
    // Patterns are not expanded in an assignment: the value is the text.
    return state.withVar(name, evaluated.kind === 'known' ? evaluated.values.map((item) => ({ text: item.text, glob: false })) : null);
  }

  /** The command lines inside `$(…)`, backticks and `<(…)` in a node: they run too. */
  substitutions(node: SyntaxNode, state: ShellState): void {
    const stack: SyntaxNode[] = [node];
    while (stack.length > 0) {
      const current = stack.pop() as SyntaxNode;
      if (current.type === 'command_substitution' || current.type === 'process_substitution') {
        this.sequence(current, state);
        // `>(sh)`: what the outer command writes there is read as code.
        const first = current.namedChildren[0];
        const reader = first?.type === 'pipeline' ? first.namedChildren[0] : first;
        if (current.text.startsWith('>(') && reader) this.readsCode(reader, state, 'a process substitution');
        continue;
      }
      for (const child of current.namedChildren) if (child) stack.push(child);
    }
  }

  private pipeline(node: SyntaxNode, state: ShellState, trailing: readonly SyntaxNode[]): void {
    const members = node.namedChildren.filter((child): child is SyntaxNode => child !== null);
    members.forEach((member, index) => {
      this.visit(member, state, index === members.length - 1 ? trailing : []);
      if (index > 0) this.readsCode(member, state, 'the pipe');
    });
  }

  /** A shell or an interpreter given no script and no code reads its code from its input: here, from `source`. */
  private readsCode(member: SyntaxNode, state: ShellState, source: string): void {
    const command = member.type === 'redirected_statement' ? member.childForFieldName('body') : member;
    if (command?.type !== 'command') return;
    const name = command.childForFieldName('name');
    const program = name ? onlyText(programName(name, state, this.environment)) : null;
    if (program === null) return;
    let base = programOf(program);
    let args = command.childrenForFieldName('argument').map((arg) => onlyText(evaluate(arg, state, this.environment)));
    // `env sh`, `timeout 9 sh`, `command bash`: the shell behind the runner reads the input.
    for (let depth = 0; depth < 4 && (runners.has(base) || base === 'xargs'); depth += 1) {
      const skip = runnerOptionValues[base] ?? [];
      let index = 0;
      while (index < args.length) {
        const arg = args[index];
        if (arg === null || arg === undefined) break;
        if (skip.includes(arg)) index += 2;
        else if (arg.startsWith('-') || /^[A-Za-z_][A-Za-z0-9_]*=/.test(arg)) index += 1;
        else break;
      }
      if (base === 'timeout') index += 1;
      const inner = args[index];
      if (inner === null || inner === undefined) return;
      base = programOf(inner);
      args = args.slice(index + 1);
    }
    if (!shells.has(base) && !interpreters.has(base)) return;
    const noScript =
      args.every((arg) => arg === null || arg.startsWith('-')) && !args.some((arg) => arg !== null && /^-[a-zA-Z]*[ce]$/.test(arg));
    if (noScript)
      this.add(
        'destructive',
        source === 'the pipe'
          ? `piping into ${base} runs whatever the pipe carries`
          : `${base} in ${source} runs whatever is written to it`,
      );
  }

  private redirect(node: SyntaxNode, state: ShellState, program: string | null): void {
    this.substitutions(node, state);
    if (node.type === 'heredoc_redirect' || node.type === 'herestring_redirect') {
      for (const inner of node.namedChildren) {
        if (!inner) continue;
        if (inner.type === 'file_redirect') this.redirect(inner, state, program);
        // The grammar hangs the rest of the line on a here-document: `<<X && rm -rf ~`, `<<X | sh`.
        else if (inner.type === 'pipeline') {
          const members = inner.namedChildren.filter((child): child is SyntaxNode => child !== null);
          members.forEach((member) => {
            this.visit(member, state);
            this.readsCode(member, state, 'the pipe');
          });
        } else if (!heredocParts.has(inner.type) && node.childrenForFieldName('argument').every((arg) => arg.id !== inner.id))
          this.visit(inner, state);
      }
      if (program !== null && (shells.has(program) || interpreters.has(program))) {
        const body =
          node.type === 'herestring_redirect' ? node.namedChildren[0] : node.namedChildren.find((child) => child?.type === 'heredoc_body');
        const literal =
          node.type === 'herestring_redirect'
            ? body
              ? onlyText(evaluate(body, state, this.environment))
              : null
            : body && body.namedChildren.every((child) => child?.type === 'heredoc_content')
              ? body.text
              : null;
        if (shells.has(program)) this.findings.push(...this.nested(literal ?? null, `${program} reading its input`));
        else if (literal === null) this.add('destructive', `${program} runs code only known when it runs`);
        else this.add('write_high', `${program} runs code`);
      }
      return;
    }
    if (node.type !== 'file_redirect') return;
    const operator = node.children.find((child) => child !== null && !child.isNamed)?.type ?? '';
    const destination = node.childForFieldName('destination');
    if (!destination) return;
    if (operator === '<' && program !== null && (shells.has(program) || interpreters.has(program))) {
      if (destination.type === 'process_substitution') this.add('destructive', `${program} runs code that arrives through a pipe`);
      else this.add('write_high', `${program} runs the script ${destination.text}`);
      return;
    }
    if (!writeOperators.has(operator)) return;
    if ((operator === '>&' || operator === '<&') && /^(\d+|-)$/.test(destination.text)) return;
    const target = argOf(evaluate(destination, state, this.environment), destination.text);
    const places = this.targetFindings(target, 'writes into', state);
    if (
      target.value.kind === 'known' &&
      target.value.values.every((value) => /^(\/dev\/(null|stdout|stderr|tty)|\/dev\/fd\/\d+)$/.test(value.text))
    )
      return;
    this.add('write_high', `writes into ${clip(destination.text)} with ${operator}`);
    this.findings.push(...places);
  }

  /** What writing to a path means, by where each of its possible values lands. */
  targetFindings(arg: Arg, verb: string, state: ShellState): Finding[] {
    const unknownLevel: RiskLevel = this.place.sandbox ? 'write_high' : 'destructive';
    if (arg.value.kind === 'computed')
      return [
        {
          level: unknownLevel,
          reason: `${verb} ${clip(arg.source)}, a path only known when it runs${this.place.sandbox ? '' : ' (no sandbox keeps it in the workspace)'}`,
        },
      ];
    const findings: Finding[] = [];
    for (const value of arg.value.values) {
      const folders = isAbsolute(value.text) ? ['/'] : state.cwd;
      if (folders === null) {
        findings.push({ level: unknownLevel, reason: `${verb} ${clip(arg.source)} in a folder only known when it runs` });
        continue;
      }
      for (const cwd of folders) {
        const where = this.judge.judge(value, cwd);
        if (where.kind === 'outside')
          findings.push({ level: 'destructive', reason: `${verb} ${clip(where.detail)}, outside the workspace` });
        else if (where.kind === 'protected')
          findings.push({ level: 'destructive', reason: `${verb} ${clip(arg.source)}: ${where.detail}` });
      }
    }
    return findings;
  }

  /** A command line run by this one: judged like the whole line, and never less than running code. */
  nested(text: string | null, what: string): Finding[] {
    if (text === null) return [{ level: 'destructive', reason: `${what} runs a command only known when it runs` }];
    if (this.depth >= maxDepth) return [{ level: 'destructive', reason: 'commands nested too deep to judge' }];
    const inner = assessWith(this.parser, text, this.judge, this.place, this.environment, this.depth + 1);
    return [{ level: maxRisk([inner.level, 'write_high']), reason: `${what} runs code: ${inner.reasons.join('; ') || 'a command'}` }];
  }

  private site(state: ShellState): ProgramSite {
    return {
      target: (arg, verb) => this.targetFindings(arg, verb, state),
      nested: (text, what) => this.nested(text, what),
      runs: (words, what) => this.runs(words, what, state),
    };
  }

  /** Words another program runs as a command (`timeout 5 rm -r x`, `xargs grep`, `find -exec`). */
  private runs(words: readonly Arg[], what: string, state: ShellState): Finding[] {
    const skip = runnerOptionValues[what] ?? [];
    let index = 0;
    while (index < words.length) {
      const text = words[index]?.text;
      if (text === null || text === undefined) break;
      if (skip.includes(text)) index += 2;
      else if (text.startsWith('-') || (what === 'env' && /^[A-Za-z_][A-Za-z0-9_]*=/.test(text))) index += 1;
      else break;
    }
    if (what === 'command' && words.slice(0, index).some((word) => word.text === '-v' || word.text === '-V'))
      return [{ level: 'read_only', reason: 'command -v only looks the program up' }];
    // timeout's first word after its options is the duration.
    const rest = words.slice(what === 'timeout' ? index + 1 : index);
    const first = rest[0];
    if (!first) return [{ level: 'read_only', reason: `${what} alone only reads` }];
    if (first.text === null)
      return [{ level: 'destructive', reason: `${what} runs a program only known when it runs (${clip(first.source)})` }];
    if (this.depth >= maxDepth) return [{ level: 'destructive', reason: 'commands nested too deep to judge' }];
    const inner = summarize(programRisk(programOf(first.text), rest.slice(1), this.site(state)));
    const floor: RiskLevel = what === 'xargs' || what === 'find -exec' ? 'write_high' : 'read_only';
    return [{ level: maxRisk([inner.level, floor]), reason: `${what} runs ${first.text}: ${inner.reasons.join('; ')}` }];
  }

  private command(node: SyntaxNode, state: ShellState, outer: readonly SyntaxNode[]): ShellState {
    for (const child of node.namedChildren) if (child && child.type !== 'command_name') this.substitutions(child, state);
    const nameNode = node.childForFieldName('name');
    if (nameNode) this.substitutions(nameNode, state);
    for (const assignment of node.namedChildren) {
      const name = assignment?.type === 'variable_assignment' ? assignment.childForFieldName('name')?.text : undefined;
      if (name && loaderVariables.test(name)) this.add('write_high', `${name}=… changes what the program loads or runs`);
    }
    const redirects = [
      ...node.namedChildren.filter((child): child is SyntaxNode => child !== null && /redirect$/.test(child.type)),
      ...outer,
    ];
    if (!nameNode) {
      for (const redirect of redirects) this.redirect(redirect, state, null);
      return state;
    }
    const name = programName(nameNode, state, this.environment);
    if (name.kind === 'computed') {
      for (const redirect of redirects) this.redirect(redirect, state, null);
      this.add('destructive', `the program name is only known when it runs (${clip(nameNode.text)})`);
      return state;
    }
    const argNodes = [
      ...node.childrenForFieldName('argument'),
      ...redirects.flatMap((redirect) => (redirect.type === 'heredoc_redirect' ? redirect.childrenForFieldName('argument') : [])),
    ];
    const args = argNodes.map((arg) => argOf(evaluate(arg, state, this.environment), arg.text));
    let after = state;
    for (const value of name.values) {
      const program = programOf(value.text);
      for (const redirect of redirects) this.redirect(redirect, state, program);
      if (program === 'cd' || program === 'pushd' || program === 'popd') {
        after = this.changeFolder(program, args, state);
        continue;
      }
      this.findings.push(...programRisk(program, args, this.site(state)));
      // Code run in this shell (eval, source, a function of the line, cd behind builtin or command) can change its
      // folder and variables in ways not followed: from here on they are only known when it runs.
      const runsHere =
        ['eval', 'source', '.'].includes(program) ||
        this.functions.has(program) ||
        (['builtin', 'command', 'exec'].includes(program) && ['cd', 'pushd', 'popd'].includes(args[0]?.text ?? ''));
      if (runsHere) after = after.withCwd(null);
      if (['read', 'mapfile', 'readarray', 'printf', 'getopts', 'let', 'declare', 'typeset'].includes(program))
        for (const arg of args) if (arg.text !== null && /^[A-Za-z_][A-Za-z0-9_]*$/.test(arg.text)) after = after.withVar(arg.text, null);
    }
    return after;
  }

  private changeFolder(program: string, args: readonly Arg[], state: ShellState): ShellState {
    this.add('read_only', `${program} changes the folder`);
    const operand = args.find((arg) => !arg.text?.startsWith('-') || arg.text === '-');
    if (program === 'popd' || operand?.text === '-') return state.withCwd(null);
    const home = state.variable('HOME');
    if (!operand)
      return home === undefined ? state.withCwd([this.environment.home]) : state.withCwd(home?.map((value) => value.text) ?? null);
    // CDPATH makes a relative name mean a folder elsewhere; `pushd +1` rotates the stack.
    const elsewhere = state.variable('CDPATH') !== undefined || /^[+-]\d+$/.test(operand.text ?? '');
    if (elsewhere || operand.value.kind === 'computed' || operand.glob || state.cwd === null) return state.withCwd(null);
    const folders = state.cwd;
    return state.withCwd(operand.value.values.flatMap((value) => folders.map((cwd) => resolve(cwd, value.text))));
  }
}

/** The values of a command's name (`command_name` wraps the word). */
function programName(node: SyntaxNode, state: ShellState, environment: WordEnvironment): WordValue {
  const word = node.namedChildren.length === 1 ? node.namedChildren[0] : null;
  return word ? evaluate(word, state, environment) : { kind: 'computed', why: 'the program name is made of several parts' };
}

function summarize(findings: readonly Finding[]): CommandRisk {
  const level = maxRisk(findings.map((finding) => finding.level));
  return { level, reasons: [...new Set(findings.filter((finding) => finding.level === level).map((finding) => finding.reason))] };
}

function assessWith(
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
    throw error;
  }
}

/** Who runs commands: the home folder and the user name `~` and `$HOME` stand for. */
export interface CommandUser {
  readonly home: string;
  readonly user: string;
}

export function currentUser(): CommandUser {
  return { home: homedir(), user: userInfo().username };
}

/** The place of a command when only the workspace and the sandbox are known. */
export function commandPlace(
  workspace: string | null,
  sandbox: CommandPlace['sandbox'],
  protectedFolders: readonly string[] = [],
  user: CommandUser = currentUser(),
): CommandPlace {
  return { workspace, sandbox, protectedFolders, home: user.home, user: user.user };
}

/**
 * The risk of a command line, from bash's own grammar and from where it writes: the highest of its commands,
 * redirections, pipes into shells, background jobs and substitutions. A path written outside the workspace,
 * a program name computed when it runs, system-wide process control, power and mounts are destructive; so is a
 * line that cannot be parsed. It is `read_only` only when nothing in it can write.
 */
export function assessCommand(parser: BashParser, command: string, place: CommandPlace): CommandRisk {
  return assessWith(parser, command, new TargetJudge(place), place, { home: place.home, user: place.user }, 0);
}

/**
 * Assesses commands for a tool that judges many: the judge of each place (its workspace's real path looked up once)
 * is kept, so a command costs its parse and the paths it writes, not the workspace's lookup again.
 */
export class CommandAssessor {
  private readonly judges = new Map<string, TargetJudge>();

  constructor(private readonly parser: BashParser) {}

  assess(command: string, place: CommandPlace): CommandRisk {
    const key = JSON.stringify([place.workspace, place.sandbox, place.protectedFolders ?? [], place.home]);
    let judge = this.judges.get(key);
    if (!judge) {
      // A handful of workspaces at a time: the oldest is forgotten first.
      if (this.judges.size >= 16) this.judges.delete(this.judges.keys().next().value as string);
      judge = new TargetJudge(place);
      this.judges.set(key, judge);
    }
    return assessWith(this.parser, command, judge, place, { home: place.home, user: place.user }, 0);
  }
}
