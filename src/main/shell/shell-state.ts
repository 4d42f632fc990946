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

/**
 * What the analysis knows at one point of a script: the folder commands run in and the variables set
 * so far, each as the set of values it can have (null: only known when it runs). Branches are joined
 * by taking every value either side can have, so a `cd` in one branch of an `if` is not forgotten.
 */
export class ShellState {
  private constructor(
    readonly cwd: readonly string[] | null,
    private readonly vars: ReadonlyMap<string, readonly ShellValue[] | null>,
  ) {}

  static start(cwd: string | null): ShellState {
    return new ShellState(cwd === null ? null : [cwd], new Map());
  }

  withCwd(cwd: readonly string[] | null): ShellState {
    return new ShellState(cwd && cwd.length <= maxValues ? [...new Set(cwd)] : null, this.vars);
  }

  withVar(name: string, values: readonly ShellValue[] | null): ShellState {
    const vars = new Map(this.vars);
    vars.set(name, values && values.length <= maxValues ? values : null);
    return new ShellState(this.cwd, vars);
  }

  /** A variable's values: set in the script, or undefined when the script never set it. */
  variable(name: string): readonly ShellValue[] | null | undefined {
    return this.vars.get(name);
  }

  /** Every value either state can have. */
  join(other: ShellState): ShellState {
    if (other === this) return this;
    const cwd = this.cwd && other.cwd ? [...this.cwd, ...other.cwd] : null;
    const vars = new Map<string, readonly ShellValue[] | null>();
    for (const name of new Set([...this.vars.keys(), ...other.vars.keys()])) {
      const mine = this.vars.get(name);
      const theirs = other.vars.get(name);
      // Set on one side only: the other side keeps whatever the environment had, which is not known.
      if (mine === undefined || theirs === undefined || mine === null || theirs === null) vars.set(name, null);
      else {
        const values = uniqueValues([...mine, ...theirs]);
        vars.set(name, values.length <= maxValues ? values : null);
      }
    }
    return new ShellState(null, vars).withCwd(cwd);
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
