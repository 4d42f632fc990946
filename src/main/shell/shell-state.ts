/*
 * What the command judge knows at one point of a script: the folder commands run in, and the values each variable and
 * word can have.
 */

/** One value a word can have when the command runs; `glob` when it holds unquoted pattern characters. */
export interface ShellValue {
  readonly text: string;
  readonly glob: boolean;
}

/** What a word is worth before the command runs: its possible values, or why they are only known then. */
export type WordValue =
  | { readonly kind: 'known'; readonly values: readonly ShellValue[] }
  | { readonly kind: 'computed'; readonly why: string; readonly indirect?: boolean };

/** Past this many possible values a word (or a folder) counts as computed: the list would say nothing. */
export const maxValues = 64;

/** What is known of the variables beyond the ones the script set. */
interface VariableFacts {
  /** Set in the script so far: their values, or null when only known when it runs. */
  readonly vars: ReadonlyMap<string, readonly ShellValue[] | null>;
  /** Code the analysis could not follow ran in this shell: a variable not set since may hold anything. */
  readonly forgotten: boolean;
  /** A nameref exists: setting one variable may set another, so every assignment makes the others unknown. */
  readonly aliased: boolean;
  /** Variables holding what a command printed or what was read from input: text nobody wrote in the line. */
  readonly fromOutput: ReadonlySet<string>;
}

const noFacts: VariableFacts = { vars: new Map(), forgotten: false, aliased: false, fromOutput: new Set() };

/**
 * What the analysis knows at one point of a script: the folder commands run in and the variables set
 * so far, each as the set of values it can have (null: only known when it runs). Branches are joined
 * by taking every value either side can have, so a `cd` in one branch of an `if` is not forgotten.
 */
export class ShellState {
  private constructor(
    readonly cwd: readonly string[] | null,
    private readonly facts: VariableFacts,
  ) {}

  static start(cwd: string | null): ShellState {
    return new ShellState(cwd === null ? null : [cwd], noFacts);
  }

  withCwd(cwd: readonly string[] | null): ShellState {
    return new ShellState(cwd && cwd.length <= maxValues ? [...new Set(cwd)] : null, this.facts);
  }

  /** A variable set; `fromOutput` when its value is what a command printed or what was read. */
  withVar(name: string, values: readonly ShellValue[] | null, fromOutput = false): ShellState {
    const base = this.facts.aliased ? this.forgetVariables().facts : this.facts;
    const vars = new Map(base.vars);
    vars.set(name, values && values.length <= maxValues ? values : null);
    const output = new Set(base.fromOutput);
    if (fromOutput) output.add(name);
    else output.delete(name);
    return new ShellState(this.cwd, { ...base, vars, fromOutput: output });
  }

  /** After code that was not followed ran in this shell: any variable may now hold anything. */
  forgetVariables(): ShellState {
    return new ShellState(this.cwd, { vars: new Map(), forgotten: true, aliased: this.facts.aliased, fromOutput: new Set() });
  }

  /** A nameref was declared: from here on, setting any variable may set another. */
  withAliases(): ShellState {
    return new ShellState(this.cwd, { ...this.forgetVariables().facts, aliased: true });
  }

  /**
   * A variable's values: set in the script, null when only known when it runs, or undefined when the script
   * never set it (it comes from the environment).
   */
  variable(name: string): readonly ShellValue[] | null | undefined {
    const values = this.facts.vars.get(name);
    if (values !== undefined) return values;
    return this.facts.forgotten ? null : undefined;
  }

  /** Whether a variable holds what a command printed or what was read from input. */
  isFromOutput(name: string): boolean {
    return this.facts.fromOutput.has(name) || (this.facts.forgotten && !this.facts.vars.has(name));
  }

  /** Every value either state can have. */
  join(other: ShellState): ShellState {
    if (other === this) return this;
    const cwd = this.cwd && other.cwd ? [...this.cwd, ...other.cwd] : null;
    const vars = new Map<string, readonly ShellValue[] | null>();
    for (const name of new Set([...this.facts.vars.keys(), ...other.facts.vars.keys()])) {
      const mine = this.variable(name);
      const theirs = other.variable(name);
      // Set on one side only: the other side keeps whatever the environment had, which is not known.
      if (mine === undefined || theirs === undefined || mine === null || theirs === null) vars.set(name, null);
      else {
        const values = uniqueValues([...mine, ...theirs]);
        vars.set(name, values.length <= maxValues ? values : null);
      }
    }
    const facts: VariableFacts = {
      vars,
      forgotten: this.facts.forgotten || other.facts.forgotten,
      aliased: this.facts.aliased || other.facts.aliased,
      fromOutput: new Set([...this.facts.fromOutput, ...other.facts.fromOutput]),
    };
    return new ShellState(null, facts).withCwd(cwd);
  }
}

export function uniqueValues(values: readonly ShellValue[]): ShellValue[] {
  const seen = new Map<string, ShellValue>();
  for (const value of values) {
    const key = `${value.glob ? 'g' : 'l'}${value.text}`;
    if (!seen.has(key)) seen.set(key, value);
  }
  return [...seen.values()];
}
