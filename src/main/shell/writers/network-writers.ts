/* The writers that reach the network: downloaders and remote copies, write_high for that alone, with the files they fill. */

import { hasAny, parseArgs } from '../command-args';
import { each, here, writes, type Writer, type WrittenPath, type Writers } from './writer-risk';

/** curl's options that take a value, so that a value is never read as a URL or a file. */
const curlValues = [
  '-o',
  '--output',
  '--output-dir',
  '-d',
  '--data',
  '-H',
  '--header',
  '-X',
  '--request',
  '-u',
  '--user',
  '-A',
  '-e',
  '-F',
  '--form',
  '-T',
  '--upload-file',
  '-K',
  '--config',
  '-b',
  '-c',
  '--cookie-jar',
  '-w',
  '-m',
  '--max-time',
  '--connect-timeout',
  '-x',
  '--proxy',
  '-r',
  '--retry',
  '-D',
  '--dump-header',
  '--trace',
  '--trace-ascii',
  '--stderr',
];

/** curl: the files its output, cookie, header and trace options name, and the folder -O saves into. */
const curl: Writer = (_program, args) => {
  const parsed = parseArgs(args, curlValues);
  const paths: WrittenPath[] = [];
  for (const option of ['-o', '--output', '-c', '--cookie-jar', '-D', '--dump-header', '--trace', '--trace-ascii', '--stderr']) {
    const file = parsed.values.get(option);
    if (file && file.text !== '-') paths.push({ arg: file, verb: 'downloads into' });
  }
  const folder = parsed.values.get('--output-dir');
  if (folder) paths.push({ arg: folder, verb: 'downloads into' });
  else if (hasAny(parsed, '-O', '--remote-name', '--remote-name-all', '-J')) paths.push({ arg: here, verb: 'downloads into' });
  return writes('write_high', 'curl reaches the network', paths);
};

/** wget: the files its output and log options name, and the folder it saves into unless -O names the file. */
const wget: Writer = (_program, args) => {
  const parsed = parseArgs(args, [
    '-O',
    '--output-document',
    '-P',
    '--directory-prefix',
    '-o',
    '--output-file',
    '-a',
    '--append-output',
    '-U',
    '--user-agent',
    '-t',
    '--tries',
    '-T',
    '--timeout',
    '-e',
    '--execute',
    '--header',
  ]);
  const paths: WrittenPath[] = [];
  for (const option of ['-O', '--output-document', '-o', '--output-file', '-a', '--append-output']) {
    const file = parsed.values.get(option);
    if (file && file.text !== '-') paths.push({ arg: file, verb: 'downloads into' });
  }
  const folder = parsed.values.get('-P') ?? parsed.values.get('--directory-prefix');
  if (!parsed.values.has('-O') && !parsed.values.has('--output-document')) paths.push({ arg: folder ?? here, verb: 'downloads into' });
  return writes('write_high', 'wget reaches the network', paths);
};

/** rsync, scp: copy into their last operand when it is local; a connecting command they are given is destructive. */
const remoteCopy: Writer = (program, args) => {
  const parsed = parseArgs(args, [
    '-e',
    '--rsh',
    '-P',
    '-i',
    '-F',
    '-o',
    '-l',
    '-c',
    '--exclude',
    '--include',
    '--filter',
    '-f',
    '--files-from',
    '--port',
  ]);
  const into = parsed.operands.at(-1);
  const local = into && into.text !== null && !/^[^/]*:/.test(into.text);
  const runs = parsed.values.get('-e') ?? parsed.values.get('--rsh') ?? (program === 'scp' ? parsed.values.get('-o') : undefined);
  if (runs) return writes('destructive', `${program} runs the command ${runs.source} to connect`);
  if (hasAny(parsed, '--remove-source-files'))
    return writes('write_high', 'rsync deletes what it copied', each(parsed.operands.slice(0, -1), 'deletes'));
  return writes(
    'write_high',
    `${program} copies files, maybe over the network`,
    local && parsed.operands.length >= 2 ? [{ arg: into, verb: 'copies into' }] : [],
  );
};

export const networkWriters: Writers = { curl, wget, rsync: remoteCopy, scp: remoteCopy };
