/* The writers of archives and compressors: what they pack, unpack or replace, and tar's ways of running commands. */

import { hasAny, parseArgs, type Arg } from '../command-args';
import { each, here, writes, type Writer, type Writers } from './writer-risk';

/** Old-style tar options (`tar czf out.tgz src`) read as if they had their dash. */
function tarArgs(args: readonly Arg[]): Arg[] {
  const first = args[0];
  if (!first?.text || first.text.startsWith('-') || !/^[A-Za-z]+$/.test(first.text)) return [...args];
  return [{ ...first, text: `-${first.text}` }, ...args.slice(1)];
}

/** Whether tar is given a command to run (or a word only known when it runs, which could be one). */
function tarRunsCommand(args: readonly Arg[]): boolean {
  return args.some(
    (arg) =>
      arg.text === null ||
      /^--(to-command|checkpoint-action|use-compress-program|info-script|new-volume-script|rsh-command)/.test(arg.text) ||
      /^-[A-Za-z]*I/.test(arg.text),
  );
}

/** tar: unpacks into -C's folder, writes its archive, or only lists; any command it is given makes it destructive. */
const tar: Writer = (_program, args) => {
  const parsed = parseArgs(tarArgs(args), ['-f', '--file', '-C', '--directory', '-T', '--files-from', '-X', '--exclude-from']);
  const file = parsed.values.get('-f') ?? parsed.values.get('--file');
  if (tarRunsCommand(args)) return writes('destructive', 'tar runs a command it is given');
  if (hasAny(parsed, '-P', '--absolute-names')) return writes('destructive', "tar -P writes the archive's absolute paths, anywhere");
  if (hasAny(parsed, '-x', '--extract', '--get'))
    return writes('write_low', 'tar unpacks files', [
      { arg: parsed.values.get('-C') ?? parsed.values.get('--directory') ?? here, verb: 'unpacks into' },
    ]);
  if (hasAny(parsed, '-c', '-r', '-u', '-A', '--create', '--append', '--update', '--delete'))
    return writes('write_low', 'tar writes an archive', file && file.text !== '-' ? [{ arg: file, verb: 'writes' }] : []);
  return writes('read_only', 'tar lists an archive');
};

/** unzip: unpacks into -d's folder, or only lists. */
const unzip: Writer = (_program, args) => {
  const parsed = parseArgs(args, ['-d', '-x', '-P']);
  if (hasAny(parsed, '-l', '-t', '-v', '-Z', '-p')) return writes('read_only', 'unzip lists an archive');
  return writes('write_low', 'unzip unpacks files', [{ arg: parsed.values.get('-d') ?? here, verb: 'unpacks into' }]);
};

/** zip: writes the archive its first operand names. */
const zip: Writer = (_program, args) => {
  const parsed = parseArgs(args, ['-x', '-i', '-P', '-b', '-n', '-t', '-tt']);
  return writes('write_low', 'zip writes an archive', each(parsed.operands.slice(0, 1), 'writes'));
};

/** gzip and its kin: replace each file with its (un)compressed one, unless they only print, list or test. */
const compressor: Writer = (program, args) => {
  const parsed = parseArgs(args, ['-S', '--suffix', '-o']);
  if (hasAny(parsed, '-c', '--stdout', '-l', '--list', '-t', '--test')) return writes('read_only', `${program} prints`);
  return writes('write_low', `${program} replaces files`, each(parsed.operands, 'replaces'));
};

export const archiveWriters: Writers = {
  tar,
  unzip,
  zip,
  gzip: compressor,
  gunzip: compressor,
  bzip2: compressor,
  bunzip2: compressor,
  xz: compressor,
  unxz: compressor,
  zstd: compressor,
  unzstd: compressor,
};
