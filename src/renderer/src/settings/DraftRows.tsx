/*
 * Rows a form grows and shrinks: a list of values (a command's arguments) or of names and values (environment
 * variables, headers), each row with its own message when it is wrong.
 */

import type { KeyValueRow } from './mcp-draft';

/** A message under a field, tied to it by `id` (the field's `aria-describedby`). */
export function FieldProblem({ id, problem }: { id: string; problem: string | undefined }) {
  if (!problem) return null;
  return (
    <span id={id} className="error small field-problem">
      {problem}
    </span>
  );
}

/** The attributes of a field for its message: marked invalid and described by it when there is one. */
export const problemAttributes = (id: string, problem: string | undefined) =>
  problem ? { 'aria-invalid': true as const, 'aria-describedby': id } : { 'aria-invalid': false as const };

/** A list of values, one input a row, each removable, and a button that adds a row. */
export function ValueRows({
  idPrefix,
  legend,
  label,
  addLabel,
  values,
  problems,
  onChange,
}: {
  /** Where the rows' problems are (`args`: `args.0`…). */
  idPrefix: string;
  legend: string;
  /** What one value is called in its row's label ("Argument" makes "Argument 1"). */
  label: string;
  addLabel: string;
  values: readonly string[];
  problems: Readonly<Record<string, string>>;
  onChange: (values: string[]) => void;
}) {
  return (
    <fieldset className="draft-rows">
      <legend>{legend}</legend>
      {values.map((value, index) => {
        const problemId = `draft-${idPrefix}-${index}-problem`;
        const problem = problems[`${idPrefix}.${index}`];
        return (
          <div key={index} className="draft-row">
            <input
              aria-label={`${label} ${index + 1}`}
              value={value}
              spellCheck={false}
              {...problemAttributes(problemId, problem)}
              onChange={(event) => onChange(values.map((other, at) => (at === index ? event.target.value : other)))}
            />
            <button
              type="button"
              className="icon"
              aria-label={`Remove ${label.toLowerCase()} ${index + 1}`}
              onClick={() => onChange(values.filter((_, at) => at !== index))}
            >
              ×
            </button>
            <FieldProblem id={problemId} problem={problem} />
          </div>
        );
      })}
      <button type="button" className="link small" onClick={() => onChange([...values, ''])}>
        {addLabel}
      </button>
    </fieldset>
  );
}

/** Rows of names and values, each removable, and a button that adds a row. */
export function KeyValueRows({
  idPrefix,
  legend,
  noun,
  rows,
  problems,
  onChange,
}: {
  /** Where the rows' problems are (`env`: `env.0.key`…). */
  idPrefix: string;
  legend: string;
  /** What one row is called in its labels ("variable", "header"). */
  noun: string;
  rows: readonly KeyValueRow[];
  problems: Readonly<Record<string, string>>;
  onChange: (rows: KeyValueRow[]) => void;
}) {
  const change = (index: number, row: Partial<KeyValueRow>): void =>
    onChange(rows.map((other, at) => (at === index ? { ...other, ...row } : other)));
  return (
    <fieldset className="draft-rows">
      <legend>{legend}</legend>
      {rows.map((row, index) => {
        const keyProblem = problems[`${idPrefix}.${index}.key`];
        const valueProblem = problems[`${idPrefix}.${index}.value`];
        const problemId = `draft-${idPrefix}-${index}-problem`;
        return (
          <div key={index} className="draft-row">
            <input
              aria-label={`Name of ${noun} ${index + 1}`}
              placeholder="NAME"
              value={row.key}
              spellCheck={false}
              {...problemAttributes(problemId, keyProblem)}
              onChange={(event) => change(index, { key: event.target.value })}
            />
            <span aria-hidden="true">=</span>
            <input
              aria-label={`Value of ${noun} ${index + 1}`}
              placeholder="value"
              value={row.value}
              spellCheck={false}
              autoComplete="off"
              {...problemAttributes(problemId, valueProblem)}
              onChange={(event) => change(index, { value: event.target.value })}
            />
            <button
              type="button"
              className="icon"
              aria-label={`Remove ${noun} ${index + 1}`}
              onClick={() => onChange(rows.filter((_, at) => at !== index))}
            >
              ×
            </button>
            <FieldProblem id={problemId} problem={keyProblem ?? valueProblem} />
          </div>
        );
      })}
      <button type="button" className="link small" onClick={() => onChange([...rows, { key: '', value: '' }])}>
        Add a {noun}
      </button>
    </fieldset>
  );
}
