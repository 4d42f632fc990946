/*
 * The functions a command line defines, as the script walk follows them: each body judged where it is defined and
 * again at each call, with recursion and the number of calls bounded.
 */

import type { RiskLevel } from '../../shared/domain';
import type { SyntaxNode } from './bash-parser';
import type { ShellState } from './shell-state';

/** How many calls of the line's own functions are followed; a line that makes more is not judged. */
const maxFunctionCalls = 32;

/** What following a function needs from the walk: running a definition's body, and noting a finding. */
export interface FunctionSite {
  runBody(definition: SyntaxNode, state: ShellState): void;
  add(level: RiskLevel, reason: string): void;
}

/** The line's functions by name, and the calls followed so far. */
export class LineFunctions {
  private readonly definitions = new Map<string, SyntaxNode>();
  private readonly calling = new Set<string>();
  /** Functions already judged as called from inside themselves, with nothing known. */
  private readonly recursive = new Set<string>();
  private calls = 0;

  constructor(private readonly site: FunctionSite) {}

  has(name: string): boolean {
    return this.definitions.has(name);
  }

  /**
   * A function of the line: its body is judged here as if any variable could hold anything (it may run later,
   * from a trap), and again at each call with what is known there.
   */
  define(node: SyntaxNode, state: ShellState): ShellState {
    const name = node.childForFieldName('name')?.text;
    if (name) this.definitions.set(name, node);
    this.site.runBody(node, state.forgetVariables());
    return state;
  }

  /** A call of the line's own function: its body runs in this shell, so what it changes is not known after. */
  call(name: string, state: ShellState): ShellState {
    const definition = this.definitions.get(name);
    this.site.add('read_only', `${name} is a function of the line`);
    if (definition && !this.calling.has(name)) {
      this.calls += 1;
      if (this.calls > maxFunctionCalls) this.site.add('destructive', `the line calls its functions more than ${maxFunctionCalls} times`);
      else {
        this.calling.add(name);
        this.site.runBody(definition, state);
        this.calling.delete(name);
      }
    } else if (definition && !this.recursive.has(name)) {
      // Called from inside itself: once more with nothing known of the folder or the variables.
      this.recursive.add(name);
      this.site.runBody(definition, state.forgetVariables().withCwd(null));
    }
    return state.forgetVariables().withCwd(null);
  }
}
