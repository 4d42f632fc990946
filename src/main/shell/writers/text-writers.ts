/*
 * The writers of the text tools: programs that mostly print, but write files when told to (an output option, a second
 * operand, editing in place) or, for sed and patch, by what their script or patch says.
 */

import { hasAny, parseArgs, type Arg, type ParsedArgs } from '../command-args';
import { sedEffects } from '../sed-script';
import { each, here, literalArg, writes, type Writer, type WrittenPath, type Writers } from './writer-risk';

/** Whether sed was given its script with -e, --expression, -f or --file (then every operand is a file). */
function given(args: readonly Arg[]): boolean {
  return args.some((arg) => arg.text !== null && /^(-[a-zA-Z]*[ef]|--expression|--file)/.test(arg.text) && !arg.text.startsWith('--in'));
}

/** Every script sed runs: each -e/--expression value in order, or its first operand. */
function sedScripts(args: readonly Arg[], parsed: ParsedArgs): Arg[] {
  const scripts: Arg[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const text = args[index]?.text;
    if (text === '--') break;
    if (text === '-e' || text === '--expression') {
      const next = args[index + 1];
      if (next) scripts.push(next);
      index += 1;
    } else if (text?.startsWith('--expression=')) scripts.push(literalArg(text.slice('--expression='.length)));
    else if (text && /^-[a-zA-Z]*e./.test(text) && !text.startsWith('--')) scripts.push(literalArg(text.slice(text.indexOf('e') + 1)));
  }
  return scripts.length > 0 ? scripts : parsed.operands.slice(0, 1);
}

/** sed: edits in place with -i, and its scripts' own `w file` and `e command` write files and run commands. */
const sed: Writer = (_program, args) => {
  const parsed = parseArgs(args, ['-e', '--expression', '-f', '--file', '-l', '--line-length']);
  const inPlace =
    hasAny(parsed, '-i', '--in-place') || args.some((arg) => arg.text?.startsWith('-i') || arg.text?.startsWith('--in-place'));
  // sed's own `w file` and `e command` write files and run commands whatever its options say.
  const scripts = sedScripts(args, parsed);
  if (parsed.values.has('-f') || parsed.values.has('--file'))
    return writes('write_high', 'sed runs a script file, which can write files or run commands');
  if (scripts.some((script) => script.text === null)) return writes('write_high', 'the sed script is only known when it runs');
  const effects = scripts.map((script) => sedEffects(script.text ?? ''));
  const written = each(
    effects.flatMap((effect) => effect.writes.filter((file) => !/^\/dev\/(null|stdout|stderr)$/.test(file)).map(literalArg)),
    'writes',
  );
  const runs = effects.flatMap((effect) => effect.runs);
  const edits = inPlace ? each(given(args) ? parsed.operands : parsed.operands.slice(1), 'edits') : [];
  if (runs.length > 0) return writes('write_high', 'the sed script runs commands', [...written, ...edits], [], runs);
  if (written.length > 0) return writes('write_low', 'the sed script writes files', [...written, ...edits]);
  return inPlace ? writes('write_low', 'sed -i edits files in place', edits) : writes('read_only', 'sed prints');
};

/** sort: prints, or writes the file -o names. */
const sort: Writer = (_program, args) => {
  const parsed = parseArgs(args, [
    '-o',
    '--output',
    '-k',
    '--key',
    '-t',
    '--field-separator',
    '-S',
    '--buffer-size',
    '-T',
    '--temporary-directory',
  ]);
  const output = parsed.values.get('-o') ?? parsed.values.get('--output');
  return output ? writes('write_low', 'sort -o writes a file', [{ arg: output, verb: 'writes' }]) : writes('read_only', 'sort prints');
};

/** uniq, xxd: `uniq IN OUT`, `xxd IN OUT`: a second operand is written. */
const secondOperand: Writer = (program, args) => {
  const parsed = parseArgs(args, program === 'uniq' ? ['-f', '-s', '-w'] : ['-c', '-g', '-l', '-o', '-s', '-n']);
  const out = parsed.operands[1];
  return out
    ? writes('write_low', `${program} writes its second file`, [{ arg: out, verb: 'writes' }])
    : writes('read_only', `${program} prints`);
};

/** shuf, tree: print, or write the file -o names. */
const outputOption: Writer = (program, args) => {
  const parsed = parseArgs(args, ['-o', '--output', '-n', '-L', '-P', '-I', '--head-count', '--random-source']);
  const out = parsed.values.get('-o') ?? parsed.values.get('--output');
  return out
    ? writes('write_low', `${program} -o writes a file`, [{ arg: out, verb: 'writes' }])
    : writes('read_only', `${program} prints`);
};

/** yq: prints, or edits its files in place with -i. */
const yq: Writer = (_program, args) => {
  const parsed = parseArgs(args, ['-o', '--output-format', '-p', '--input-format', '--from-file']);
  return hasAny(parsed, '-i', '--inplace')
    ? writes('write_low', 'yq -i edits files in place', each(parsed.operands.slice(1), 'edits'))
    : writes('read_only', 'yq prints');
};

/** patch: edits the files its patch names, in the folder -d gives, and writes -o's file. */
const patch: Writer = (_program, args) => {
  const parsed = parseArgs(args, ['-o', '--output', '-d', '--directory', '-i', '--input', '-p', '-r', '--reject-file', '-B', '-F']);
  const paths: WrittenPath[] = [{ arg: parsed.values.get('-d') ?? parsed.values.get('--directory') ?? here, verb: 'patches files in' }];
  const output = parsed.values.get('-o') ?? parsed.values.get('--output');
  if (output) paths.push({ arg: output, verb: 'writes' });
  if (parsed.operands[0]) paths.push({ arg: parsed.operands[0], verb: 'patches' });
  return writes('write_low', 'patch edits files', paths);
};

/** split, csplit: write pieces named from a prefix (split's second operand, or -f). */
const pieces: Writer = (program, args) => {
  const parsed = parseArgs(args, ['-b', '-l', '-n', '-a', '-C', '-f', '--prefix', '-d']);
  const prefix = parsed.values.get('-f') ?? parsed.values.get('--prefix') ?? (program === 'split' ? parsed.operands[1] : undefined);
  return writes('write_low', `${program} writes pieces of a file`, [{ arg: prefix ?? here, verb: 'writes pieces to' }]);
};

export const textWriters: Writers = {
  sed,
  sort,
  uniq: secondOperand,
  xxd: secondOperand,
  shuf: outputOption,
  tree: outputOption,
  yq,
  patch,
  split: pieces,
  csplit: pieces,
};
