/*
 * The values a bash word can have before the command runs: quotes, braces, `~` and variables worked out, anything else
 * marked as computed.
 */

import type { SyntaxNode } from './bash-parser';
import { maxValues, uniqueValues, type ShellState, type ShellValue, type WordValue } from './shell-state';

/** What a word needs to know of the machine: the person's home folder and name, for `~` and `$HOME`. */
export interface WordEnvironment {
  readonly home: string;
  readonly user: string;
}

const computed = (why: string, indirect = false): WordValue => ({ kind: 'computed', why, ...(indirect ? { indirect } : {}) });
const known = (text: string, glob = false): WordValue => ({ kind: 'known', values: [{ text, glob }] });

/** Special parameters and positional ones: never known before the command runs. */
const specialParameter = /^([0-9]+|[@*#?$!-])$/;

/** Unquoted text of a word: backslashes removed, glob characters noted. */
function unquotedWord(raw: string): ShellValue {
  let text = '';
  let glob = false;
  for (let index = 0; index < raw.length; index += 1) {
    const char = raw[index] as string;
    if (char === '\\' && index + 1 < raw.length) {
      const next = raw[index + 1] as string;
      if (next !== '\n') text += next;
      index += 1;
      continue;
    }
    if (char === '*' || char === '?' || char === '[') glob = true;
    text += char;
  }
  return { text, glob };
}

/** `$'…'`: the common escapes decoded; anything rarer is kept as written. */
function ansiC(raw: string): string {
  const body = raw.slice(2, -1);
  const simple: Record<string, string> = {
    n: '\n',
    t: '\t',
    r: '\r',
    '\\': '\\',
    "'": "'",
    '"': '"',
    a: '\u0007',
    b: '\b',
    e: '\u001b',
    E: '\u001b',
    f: '\f',
    v: '\v',
  };
  return body.replace(/\\(x[0-9A-Fa-f]{1,2}|[0-7]{1,3}|.)/g, (whole, escape: string) => {
    if (escape.startsWith('x')) return String.fromCharCode(parseInt(escape.slice(1), 16));
    if (/^[0-7]+$/.test(escape)) return String.fromCharCode(parseInt(escape, 8));
    return simple[escape] ?? whole;
  });
}

/** Text inside double quotes: only \\, \", \$, \` and a newline are escapes there. */
const doubleQuoted = (raw: string): string => raw.replace(/\\([\\"$`\n])/g, (_whole, char: string) => (char === '\n' ? '' : char));

/** Every combination of the parts' values, in order (a word made of several pieces). */
function product(parts: readonly WordValue[]): WordValue {
  let values: ShellValue[] = [{ text: '', glob: false }];
  for (const part of parts) {
    if (part.kind === 'computed') return part;
    const next: ShellValue[] = [];
    for (const left of values) for (const right of part.values) next.push({ text: left.text + right.text, glob: left.glob || right.glob });
    if (next.length > maxValues) return computed('it has too many possible values');
    values = next;
  }
  return { kind: 'known', values: uniqueValues(values) };
}

/** Bash brace expansion of unquoted text: `{a,b}` and `{1..3}`; nothing else is touched. */
export function expandBraces(text: string, limit = maxValues + 1): string[] {
  let depth = 0;
  let open = -1;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (char === '\\') {
      index += 1;
      continue;
    }
    if (char === '{') {
      if (depth === 0) open = index;
      depth += 1;
    } else if (char === '}' && depth > 0) {
      depth -= 1;
      if (depth !== 0) continue;
      const inner = text.slice(open + 1, index);
      const options = splitTopLevel(inner);
      const range = /^(-?\d+)\.\.(-?\d+)$/.exec(inner);
      let choices: string[] | null = null;
      if (options.length > 1) choices = options;
      else if (range) {
        const [from, to] = [Number(range[1]), Number(range[2])];
        if (Math.abs(to - from) < maxValues)
          choices = Array.from({ length: Math.abs(to - from) + 1 }, (_, step) => String(from + (to >= from ? step : -step)));
      }
      if (!choices) continue;
      const before = text.slice(0, open);
      const after = text.slice(index + 1);
      // Stops at the limit: past it the word counts as computed, and expanding every group would take exponential time.
      const results: string[] = [];
      for (const choice of choices) {
        results.push(...expandBraces(`${before}${choice}${after}`, limit - results.length));
        if (results.length >= limit) break;
      }
      return results.slice(0, limit);
    }
  }
  return [text];
}

function splitTopLevel(inner: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < inner.length; index += 1) {
    const char = inner[index];
    if (char === '\\') index += 1;
    else if (char === '{') depth += 1;
    else if (char === '}') depth -= 1;
    else if (char === ',' && depth === 0) {
      parts.push(inner.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(inner.slice(start));
  return parts;
}

/**
 * `~`, `~/x`, `~user/x` at the start of an unquoted word. `~` is `$HOME`, so a `HOME` set in the line (or
 * made unknown by code that was not followed) counts; null when it is only known when it runs.
 */
function tilde(value: ShellValue, state: ShellState, environment: WordEnvironment): ShellValue[] | null {
  const match = /^~([A-Za-z0-9._-]*)(\/.*)?$/.exec(value.text);
  if (!match) return [value];
  const user = match[1] ?? '';
  const rest = match[2] ?? '';
  if (user !== '' && user !== environment.user)
    return [{ text: `${environment.home.replace(/\/[^/]+\/?$/, '')}/${user}${rest}`, glob: value.glob }];
  const home = user === '' ? state.variable('HOME') : undefined;
  if (home === null) return null;
  const homes = home === undefined ? [environment.home] : home.map((item) => item.text);
  return homes.map((text) => ({ text: `${text}${rest}`, glob: value.glob }));
}

/** A variable's values where it is used: set in the script, or a few the analysis can know. */
function variable(name: string, state: ShellState, environment: WordEnvironment): WordValue {
  if (specialParameter.test(name)) return computed(`$${name} is only known when it runs`);
  const values = state.variable(name);
  if (values === null) return computed(`$${name} is only known when it runs`);
  if (values !== undefined) return { kind: 'known', values };
  if (name === 'HOME') return known(environment.home);
  if (name === 'PWD' && state.cwd) return { kind: 'known', values: state.cwd.map((text) => ({ text, glob: false })) };
  return computed(`$${name} comes from the environment`);
}

/** `${…}`: a plain or defaulted variable is followed; indirection and substitutions are only known when run. */
function braceExpansion(node: SyntaxNode, state: ShellState, environment: WordEnvironment): WordValue {
  const name = node.namedChildren.find((child) => child?.type === 'variable_name' || child?.type === 'special_variable_name');
  const operators = node.children
    .filter((child) => child && !child.isNamed && child.type !== '${' && child.type !== '}')
    .map((child) => child?.type);
  if (operators[0] === '!') return computed(`${node.text} names its variable at run time`, true);
  if (!name) return computed(`${node.text} is only known when it runs`);
  const base = variable(name.text, state, environment);
  if (operators.length === 0) return base;
  const operator = operators[0] as string;
  if (operator === '#' && node.text.startsWith('${#')) return known('0');
  // Removing a prefix or suffix, or changing case, leaves a value of the same kind: a relative path stays relative.
  // Removing a suffix or changing case leaves a value of the same kind; removing a prefix can make `a/etc` into `/etc`.
  if (['%', '%%', '^', '^^', ',', ',,'].includes(operator)) return base;
  if ([':-', '-', ':=', '='].includes(operator)) {
    const fallback = node.namedChildren
      .filter((child) => child !== null && child !== name)
      .map((child) => evaluate(child as SyntaxNode, state, environment));
    const alternative = fallback.length > 0 ? product(fallback) : known('');
    if (base.kind === 'computed') return computed(`${node.text} depends on the environment`);
    if (alternative.kind === 'computed') return alternative;
    return { kind: 'known', values: uniqueValues([...base.values, ...alternative.values]) };
  }
  return computed(`${node.text} is only known when it runs`);
}

/**
 * The values a word (an argument, a program name, a redirection's target) can have when the command
 * runs: quotes removed, variables set earlier in the script followed, braces expanded, `~` made the home
 * folder. A command substitution, an arithmetic result or a variable from the environment makes it
 * computed: only known when it runs.
 */
export function evaluate(node: SyntaxNode, state: ShellState, environment: WordEnvironment, quoted = false): WordValue {
  switch (node.type) {
    case 'word':
    case 'number':
    case 'extglob_pattern':
    case 'variable_name': {
      const value = unquotedWord(node.text);
      const expanded = /[{]/.test(value.text) ? expandBraces(node.text).map(unquotedWord) : [value];
      if (expanded.length > maxValues) return computed('it has too many possible values');
      const values: ShellValue[] = [];
      for (const item of expanded) {
        const homes = tilde(item, state, environment);
        if (homes === null) return computed(`${node.text} starts with ~, and $HOME is only known when it runs`);
        values.push(...homes);
      }
      return values.length > maxValues ? computed('it has too many possible values') : { kind: 'known', values: uniqueValues(values) };
    }
    case 'raw_string':
      return known(node.text.slice(1, -1));
    case 'ansi_c_string':
      return known(ansiC(node.text));
    case 'string':
    case 'translated_string': {
      const parts: WordValue[] = [];
      for (const child of node.namedChildren) {
        if (!child) continue;
        parts.push(child.type === 'string_content' ? known(doubleQuoted(child.text)) : evaluate(child, state, environment, true));
      }
      // Inside quotes nothing is a pattern.
      const whole = product(parts);
      return whole.kind === 'known' ? { kind: 'known', values: whole.values.map((value) => ({ text: value.text, glob: false })) } : whole;
    }
    case 'simple_expansion':
    case 'expansion': {
      const name = node.namedChildren[0];
      const value =
        node.type === 'expansion' ? braceExpansion(node, state, environment) : name ? variable(name.text, state, environment) : known('$');
      // Unquoted, a value with spaces splits into several words (`x='a /etc/'; cp b $x` copies into /etc).
      if (!quoted && value.kind === 'known' && value.values.some((item) => /[ \t\n]/.test(item.text)))
        return computed(`${node.text} splits into several words when it runs`);
      return value;
    }
    case 'concatenation': {
      const parts = node.children
        .filter((child): child is SyntaxNode => child !== null)
        .map((child) => evaluate(child, state, environment));
      const whole = product(parts);
      // Braces split across pieces (`{a,b}/c` arrives as four words) expand once the pieces are joined.
      if (whole.kind !== 'known' || !node.text.includes('{')) return whole;
      const values = whole.values.flatMap((value) => expandBraces(value.text).map((text) => ({ text, glob: value.glob })));
      return values.length > maxValues ? computed('it has too many possible values') : { kind: 'known', values: uniqueValues(values) };
    }
    case 'brace_expression': {
      const values = expandBraces(node.text);
      return values.length > maxValues
        ? computed('it has too many possible values')
        : { kind: 'known', values: values.map((text) => ({ text, glob: false })) };
    }
    case 'process_substitution':
      // The command sees a pipe's name; what runs inside is judged on its own.
      return known('/dev/fd/63');
    case 'command_substitution':
      return computed(`${node.text.length > 40 ? `${node.text.slice(0, 40)}…` : node.text} is only known when it runs`);
    case 'arithmetic_expansion':
      return computed('an arithmetic result is only known when it runs');
    default:
      if (!node.isNamed) return known(node.text);
      return computed(`${node.type.replace(/_/g, ' ')} is only known when it runs`);
  }
}

/** The single text of a word when it has exactly one known value. */
export function onlyText(value: WordValue): string | null {
  return value.kind === 'known' && value.values.length === 1 ? (value.values[0] as ShellValue).text : null;
}

/**
 * Whether an expansion is bash's indirection `${!name}` (with or without an operator after it): bash reads the
 * variable whose name `name` holds, and evaluates an array subscript in that name as arithmetic, where a command
 * substitution runs (`v='a[$(touch x)]'; ls ${!v}` runs touch). Listing variable names (`${!pre*}`, `${!pre@}`) or an
 * array's keys (`${!a[@]}`) reads no value as code.
 */
export function evaluatesIndirection(text: string): boolean {
  if (!text.startsWith('${!')) return false;
  return !/^\$\{![A-Za-z_][A-Za-z0-9_]*(?:[*@]|\[[*@]\])\}$/.test(text);
}

/**
 * What an indirection may run, judged as arithmetic is: the name it reads is held by a variable whose values are
 * known (set earlier in the line) and plain, nothing; unknown, or holding `$`, at least a high write (what it expands
 * to is only known when it runs); holding a command substitution or a backtick, destructive (it runs a command).
 */
export function indirectionRisk(
  node: SyntaxNode,
  state: ShellState,
  environment: WordEnvironment,
): { level: 'write_high' | 'destructive'; reason: string } | null {
  const name = node.namedChildren.find((child) => child?.type === 'variable_name' || child?.type === 'special_variable_name');
  const value = name ? variable(name.text, state, environment) : null;
  if (!value || value.kind === 'computed')
    return {
      level: 'write_high',
      reason: `${node.text} reads the variable another one names, only known when it runs (bash runs a command in an array subscript there)`,
    };
  if (value.values.some((item) => /\$\(|`|[<>]\(/.test(item.text)))
    return { level: 'destructive', reason: `${node.text} reads a name whose array subscript runs a command` };
  if (value.values.some((item) => item.text.includes('$')))
    return { level: 'write_high', reason: `${node.text} reads a name that expands a variable in its subscript when it runs` };
  return null;
}
