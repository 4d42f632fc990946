/*
 * What the words of a statement do besides giving values: the variables they set, and the commands arithmetic and
 * prompt expansion run.
 */

import type { SyntaxNode } from './bash-parser';
import type { Arg, Finding } from './command-args';
import type { ShellState } from './shell-state';
import { evaluate, type WordEnvironment } from './shell-words';

/**
 * What the words of a statement do besides giving values. `${x:=…}`, `${x=…}` and arithmetic (`((x++))`,
 * `$((x=5))`, `let x=5`) set variables. Arithmetic and `${x@P}` also evaluate text held in variables, and an
 * array subscript in that text (`a[$(cmd)]`) or a prompt escape runs a command.
 */
export interface WordEffects {
  readonly state: ShellState;
  readonly findings: readonly Finding[];
}

/** How far a name whose value is another name is followed in arithmetic (bash follows them all). */
const maxIndirection = 6;

/** An arithmetic text that sets something: `=` (not `==`, `!=`, `<=`, `>=`), `op=`, `++` or `--`. */
const assigning = /(^|[^=!<>])=(?!=)|\+\+|--/;

const arithmeticTests = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);

/** What evaluating a text as arithmetic can do: nothing more, run a command it holds, or run one it may hold. */
type TextRisk = 'none' | 'code' | 'output';

const worse = (left: TextRisk, right: TextRisk): TextRisk =>
  left === 'code' || right === 'code' ? 'code' : left === 'output' ? left : right;

class EffectScan {
  readonly findings: Finding[] = [];
  readonly assigned = new Set<string>();

  constructor(
    private readonly state: ShellState,
    private readonly environment: WordEnvironment,
  ) {}

  /** The risk of a text evaluated as arithmetic: substitutions in it run, and names in it are evaluated in turn. */
  textRisk(text: string, depth = 0): TextRisk {
    if (/[$`]/.test(text)) return 'code';
    if (depth >= maxIndirection) return 'output';
    let risk: TextRisk = 'none';
    for (const name of text.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []) risk = worse(risk, this.nameRisk(name, depth + 1));
    return risk;
  }

  nameRisk(name: string, depth = 0): TextRisk {
    const values = this.state.variable(name);
    if (values === null || values === undefined) return this.state.isFromOutput(name) ? 'output' : 'none';
    let risk: TextRisk = 'none';
    for (const value of values) risk = worse(risk, this.textRisk(value.text, depth));
    return risk;
  }

  report(risk: TextRisk, what: string): void {
    if (risk === 'code')
      this.findings.push({ level: 'destructive', reason: `${what} holds a command, and evaluating it runs that command` });
    else if (risk === 'output')
      this.findings.push({
        level: 'write_high',
        reason: `${what} holds text only known when it runs, and evaluating it can run a command in it`,
      });
  }

  /** An arithmetic expression: what it sets, and what the names and expansions in it hold. */
  arithmetic(node: SyntaxNode): void {
    const sets = assigning.test(node.text);
    const stack: SyntaxNode[] = [node];
    while (stack.length > 0) {
      const current = stack.pop() as SyntaxNode;
      if (current.type === 'command_substitution') {
        this.report('output', `arithmetic on ${current.text.length > 40 ? `${current.text.slice(0, 40)}…` : current.text}`);
        continue;
      }
      if (current.type === 'variable_name' && current.parent?.type !== 'subscript') {
        if (sets) this.assigned.add(current.text);
        this.report(this.nameRisk(current.text), `arithmetic on ${current.text}`);
      } else if (current.type === 'simple_expansion' || current.type === 'expansion') {
        const value = evaluate(current, this.state, this.environment, true);
        const name = current.namedChildren.find((child) => child?.type === 'variable_name')?.text;
        const risk =
          value.kind === 'known'
            ? value.values.reduce<TextRisk>((sum, item) => worse(sum, this.textRisk(item.text)), 'none')
            : name !== undefined && this.state.isFromOutput(name)
              ? 'output'
              : 'none';
        this.report(risk, `arithmetic on ${current.text}`);
      }
      for (const child of current.namedChildren) if (child) stack.push(child);
    }
  }

  /** `${…}`: assignments by default, prompt expansion, substring offsets. */
  expansion(node: SyntaxNode): void {
    const name = node.namedChildren.find((child) => child?.type === 'variable_name')?.text;
    const tokens = node.children.filter((child) => child !== null && !child.isNamed).map((child) => child?.type);
    if (name === undefined) return;
    if (tokens.includes(':=') || tokens.includes('=')) this.assigned.add(name);
    const at = tokens.indexOf('@');
    if (at !== -1 && tokens[at + 1] === 'P') {
      const values = this.state.variable(name);
      const holds = values?.some((value) => /[$`]/.test(value.text)) ? 'code' : this.state.isFromOutput(name) ? 'output' : 'none';
      this.report(holds, `\${${name}@P} expands prompt escapes: ${name}`);
    }
    // `${x:offset:length}`: both are arithmetic.
    if (tokens[1] === ':') for (const child of node.namedChildren) if (child && child.type !== 'variable_name') this.arithmetic(child);
  }

  scan(node: SyntaxNode, arithmetic: boolean): void {
    if (arithmetic) {
      this.arithmetic(node);
      return;
    }
    const stack: SyntaxNode[] = [node];
    while (stack.length > 0) {
      const current = stack.pop() as SyntaxNode;
      if (current.type === 'arithmetic_expansion' || (current.type === 'compound_statement' && current.child(0)?.type === '((')) {
        this.arithmetic(current);
        continue;
      }
      if (current.type === 'expansion') this.expansion(current);
      if (current.type === 'subscript') {
        const index = current.childForFieldName('index');
        if (index) this.arithmetic(index);
      }
      if (current.type === 'binary_expression' && current.parent?.type === 'test_command') {
        const operator = current.childForFieldName('operator')?.text ?? '';
        if (arithmeticTests.has(operator)) {
          for (const side of [current.childForFieldName('left'), current.childForFieldName('right')]) if (side) this.arithmetic(side);
          continue;
        }
      }
      for (const child of current.namedChildren) if (child) stack.push(child);
    }
  }
}

/** The effects of a statement's words; `arithmetic` when the nodes are arithmetic expressions themselves. */
export function wordEffects(
  nodes: readonly SyntaxNode[],
  state: ShellState,
  environment: WordEnvironment,
  arithmetic = false,
): WordEffects {
  // Expansions start with `$`, arithmetic commands and subscripts with `(` or `[`: a statement without them has no effects.
  const relevant = arithmetic ? nodes : nodes.filter((node) => /[$([]/.test(node.text));
  if (relevant.length === 0) return { state, findings: [] };
  const scan = new EffectScan(state, environment);
  for (const node of relevant) scan.scan(node, arithmetic);
  let after = state;
  for (const name of scan.assigned) after = after.withVar(name, null);
  return { state: after, findings: scan.findings };
}

/** `let`: each word is arithmetic. */
export function letEffects(args: readonly Arg[], state: ShellState, environment: WordEnvironment): WordEffects {
  const scan = new EffectScan(state, environment);
  let after = state;
  for (const arg of args) {
    if (arg.text === null) {
      scan.report('output', `let ${arg.source}`);
      continue;
    }
    scan.report(scan.textRisk(arg.text), `let ${arg.text}`);
    if (assigning.test(arg.text)) for (const name of arg.text.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []) after = after.withVar(name, null);
  }
  return { state: after, findings: scan.findings };
}
