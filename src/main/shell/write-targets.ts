import type { RiskLevel } from '../../shared/domain';
import { hasAny, parseArgs, type Arg, type Finding, type ParsedArgs } from './command-args';
import { sedEffects } from './sed-script';

/** A path a command writes, moves, links or deletes, and the verb that says so. */
export interface WrittenPath {
  readonly arg: Arg;
  readonly verb: string;
  /** A relative path read from this path's folder: what a symbolic link made there points to. */
  readonly from?: Arg;
}

export interface WriterRisk {
  readonly level: RiskLevel;
  readonly reason: string;
  readonly paths: readonly WrittenPath[];
  readonly extra: readonly Finding[];
  /** Command lines the program runs (null: one only known when it runs), judged like the line itself. */
  readonly runs?: readonly (string | null)[];
}

const writes = (
  level: RiskLevel,
  reason: string,
  paths: WrittenPath[] = [],
  extra: Finding[] = [],
  runs: readonly (string | null)[] = [],
): WriterRisk => ({ level, reason, paths, extra, runs });
const each = (args: readonly Arg[], verb: string): WrittenPath[] => args.map((arg) => ({ arg, verb }));
/** The folder the command runs in, as an argument: for tools that write there when given no place. */
const here: Arg = { value: { kind: 'known', values: [{ text: '.', glob: false }] }, text: '.', source: '.', glob: false };

/** A path written in a script rather than given as a word (`sed 'w out.txt'`). */
const literalArg = (text: string): Arg => ({ value: { kind: 'known', values: [{ text, glob: false }] }, text, source: text, glob: false });

/** cp, mv, ln, install: `-t DIR`, or the last operand when there are two or more. */
function destination(parsed: ParsedArgs): Arg | null {
  const target = parsed.values.get('-t') ?? parsed.values.get('--target-directory');
  if (target) return target;
  return parsed.operands.length >= 2 ? (parsed.operands.at(-1) as Arg) : null;
}

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

/** Old-style tar options (`tar czf out.tgz src`) read as if they had their dash. */
function tarArgs(args: readonly Arg[]): Arg[] {
  const first = args[0];
  if (!first?.text || first.text.startsWith('-') || !/^[A-Za-z]+$/.test(first.text)) return [...args];
  return [{ ...first, text: `-${first.text}` }, ...args.slice(1)];
}

/**
 * The commands that write files, with the paths they write: each path is then judged by where it is.
 * Null for a program that is not one of them.
 */
export function argTargets(program: string, args: readonly Arg[]): WriterRisk | null {
  switch (program) {
    case 'rm': {
      const parsed = parseArgs(args);
      const paths = each(parsed.operands, 'deletes');
      if (hasAny(parsed, '-r', '-R', '--recursive')) return writes('destructive', 'rm -r deletes whole folders', paths);
      if (parsed.operands.some((arg) => arg.glob || arg.value.kind === 'computed'))
        return writes('destructive', 'rm with a pattern deletes files not named', paths);
      return writes('write_high', 'rm deletes files for good', paths);
    }
    case 'rmdir':
    case 'unlink':
      return writes('write_high', `${program} deletes`, each(parseArgs(args).operands, 'deletes'));
    case 'truncate':
      return writes(
        'destructive',
        'truncate destroys file contents',
        each(parseArgs(args, ['-s', '--size', '-r', '--reference']).operands, 'truncates'),
      );
    case 'chmod':
    case 'chown':
    case 'chgrp':
    case 'chattr':
    case 'setfacl': {
      const parsed = parseArgs(args, ['--reference', '-m', '-x', '-M', '-X', '--from']);
      const byReference = parsed.values.has('--reference') || program === 'setfacl';
      const paths = each(byReference ? parsed.operands : parsed.operands.slice(1), 'changes permissions of');
      if (hasAny(parsed, '-R', '--recursive')) return writes('destructive', `${program} -R changes a whole tree`, paths);
      return writes('write_high', `${program} changes permissions`, paths);
    }
    case 'mkdir':
      return writes('write_low', 'mkdir makes folders', each(parseArgs(args, ['-m', '--mode']).operands, 'makes'));
    case 'touch':
      return writes(
        'write_low',
        'touch writes files',
        each(parseArgs(args, ['-r', '-d', '-t', '--reference', '--date']).operands, 'writes'),
      );
    case 'mkfifo':
    case 'mknod':
      return writes('write_low', `${program} makes special files`, each(parseArgs(args, ['-m', '--mode']).operands.slice(0, 1), 'makes'));
    case 'cp': {
      const parsed = parseArgs(args, ['-t', '--target-directory', '-S', '--suffix']);
      const into = destination(parsed);
      return writes('write_low', 'cp writes files', into ? [{ arg: into, verb: 'copies into' }] : []);
    }
    case 'mv': {
      const parsed = parseArgs(args, ['-t', '--target-directory', '-S', '--suffix']);
      const into = destination(parsed);
      // Moving takes the sources away from where they were, so they are written too.
      return writes('write_low', 'mv moves files', [
        ...each(parsed.operands, 'moves'),
        ...(into ? [{ arg: into, verb: 'moves into' }] : []),
      ]);
    }
    case 'ln': {
      const parsed = parseArgs(args, ['-t', '--target-directory', '-S', '--suffix']);
      const into = destination(parsed);
      const symbolic = hasAny(parsed, '-s', '--symbolic');
      const sources = into ? parsed.operands.filter((arg) => arg !== into) : parsed.operands;
      // A symbolic link's relative target is read from the link's folder, unless ln makes it relative itself (-r).
      const from = symbolic && into && !hasAny(parsed, '-r', '--relative') ? into : undefined;
      // A hard link to a file outside lets a later write inside change that file.
      return writes('write_low', 'ln makes links', [
        ...(into ? [{ arg: into, verb: 'makes a link at' }] : []),
        // A link that leads outside is a way out for whatever writes through it later.
        ...sources.map((arg) => ({ arg, verb: symbolic ? 'links to' : 'hard-links', ...(from ? { from } : {}) })),
      ]);
    }
    case 'tee': {
      const files = parseArgs(args).operands.filter((arg) => !/^\/dev\/(null|stdout|stderr|tty)$/.test(arg.text ?? ''));
      return files.length === 0 ? writes('read_only', 'tee only prints') : writes('write_low', 'tee writes files', each(files, 'writes'));
    }
    case 'install': {
      const parsed = parseArgs(args, ['-t', '--target-directory', '-m', '--mode', '-o', '--owner', '-g', '--group', '-S', '--suffix']);
      if (hasAny(parsed, '-d', '--directory')) return writes('write_low', 'install makes folders', each(parsed.operands, 'makes'));
      const into = destination(parsed);
      return writes('write_low', 'install copies files', into ? [{ arg: into, verb: 'installs into' }] : []);
    }
    case 'sed': {
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
    }
    case 'sort': {
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
    }
    case 'tar': {
      const parsed = parseArgs(tarArgs(args), ['-f', '--file', '-C', '--directory', '-T', '--files-from', '-X', '--exclude-from']);
      const file = parsed.values.get('-f') ?? parsed.values.get('--file');
      if (
        args.some(
          (arg) =>
            arg.text === null ||
            /^--(to-command|checkpoint-action|use-compress-program|info-script|new-volume-script|rsh-command)/.test(arg.text) ||
            /^-[A-Za-z]*I/.test(arg.text),
        )
      )
        return writes('destructive', 'tar runs a command it is given');
      if (hasAny(parsed, '-P', '--absolute-names')) return writes('destructive', "tar -P writes the archive's absolute paths, anywhere");
      if (hasAny(parsed, '-x', '--extract', '--get'))
        return writes('write_low', 'tar unpacks files', [
          { arg: parsed.values.get('-C') ?? parsed.values.get('--directory') ?? here, verb: 'unpacks into' },
        ]);
      if (hasAny(parsed, '-c', '-r', '-u', '-A', '--create', '--append', '--update', '--delete'))
        return writes('write_low', 'tar writes an archive', file && file.text !== '-' ? [{ arg: file, verb: 'writes' }] : []);
      return writes('read_only', 'tar lists an archive');
    }
    case 'unzip': {
      const parsed = parseArgs(args, ['-d', '-x', '-P']);
      if (hasAny(parsed, '-l', '-t', '-v', '-Z', '-p')) return writes('read_only', 'unzip lists an archive');
      return writes('write_low', 'unzip unpacks files', [{ arg: parsed.values.get('-d') ?? here, verb: 'unpacks into' }]);
    }
    case 'zip': {
      const parsed = parseArgs(args, ['-x', '-i', '-P', '-b', '-n', '-t', '-tt']);
      return writes('write_low', 'zip writes an archive', each(parsed.operands.slice(0, 1), 'writes'));
    }
    case 'gzip':
    case 'gunzip':
    case 'bzip2':
    case 'bunzip2':
    case 'xz':
    case 'unxz':
    case 'zstd':
    case 'unzstd': {
      const parsed = parseArgs(args, ['-S', '--suffix', '-o']);
      if (hasAny(parsed, '-c', '--stdout', '-l', '--list', '-t', '--test')) return writes('read_only', `${program} prints`);
      return writes('write_low', `${program} replaces files`, each(parsed.operands, 'replaces'));
    }
    case 'patch': {
      const parsed = parseArgs(args, ['-o', '--output', '-d', '--directory', '-i', '--input', '-p', '-r', '--reject-file', '-B', '-F']);
      const paths: WrittenPath[] = [{ arg: parsed.values.get('-d') ?? parsed.values.get('--directory') ?? here, verb: 'patches files in' }];
      const output = parsed.values.get('-o') ?? parsed.values.get('--output');
      if (output) paths.push({ arg: output, verb: 'writes' });
      if (parsed.operands[0]) paths.push({ arg: parsed.operands[0], verb: 'patches' });
      return writes('write_low', 'patch edits files', paths);
    }
    case 'split':
    case 'csplit': {
      const parsed = parseArgs(args, ['-b', '-l', '-n', '-a', '-C', '-f', '--prefix', '-d']);
      const prefix = parsed.values.get('-f') ?? parsed.values.get('--prefix') ?? (program === 'split' ? parsed.operands[1] : undefined);
      return writes('write_low', `${program} writes pieces of a file`, [{ arg: prefix ?? here, verb: 'writes pieces to' }]);
    }
    case 'curl': {
      const parsed = parseArgs(args, [
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
      ]);
      const paths: WrittenPath[] = [];
      for (const option of ['-o', '--output', '-c', '--cookie-jar', '-D', '--dump-header', '--trace', '--trace-ascii', '--stderr']) {
        const file = parsed.values.get(option);
        if (file && file.text !== '-') paths.push({ arg: file, verb: 'downloads into' });
      }
      const folder = parsed.values.get('--output-dir');
      if (folder) paths.push({ arg: folder, verb: 'downloads into' });
      else if (hasAny(parsed, '-O', '--remote-name', '--remote-name-all', '-J')) paths.push({ arg: here, verb: 'downloads into' });
      return writes('write_high', 'curl reaches the network', paths);
    }
    case 'wget': {
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
    }
    case 'rsync':
    case 'scp': {
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
    }
    case 'make':
    case 'ninja':
    case 'cmake': {
      const parsed = parseArgs(
        args,
        program === 'cmake'
          ? ['-B', '-S', '-G', '-D', '-C', '-T', '-A']
          : ['-C', '--directory', '-f', '--file', '-j', '--jobs', '-l', '-o', '-W'],
      );
      const paths: WrittenPath[] = [];
      for (const option of program === 'cmake' ? ['-B'] : ['-C', '--directory']) {
        const folder = parsed.values.get(option);
        if (folder) paths.push({ arg: folder, verb: 'builds in' });
      }
      return writes('write_high', `${program} runs a build`, paths);
    }
    case 'uniq':
    case 'xxd': {
      // `uniq IN OUT`, `xxd IN OUT`: a second operand is written.
      const parsed = parseArgs(args, program === 'uniq' ? ['-f', '-s', '-w'] : ['-c', '-g', '-l', '-o', '-s', '-n']);
      const out = parsed.operands[1];
      return out
        ? writes('write_low', `${program} writes its second file`, [{ arg: out, verb: 'writes' }])
        : writes('read_only', `${program} prints`);
    }
    case 'shuf':
    case 'tree': {
      const parsed = parseArgs(args, ['-o', '--output', '-n', '-L', '-P', '-I', '--head-count', '--random-source']);
      const out = parsed.values.get('-o') ?? parsed.values.get('--output');
      return out
        ? writes('write_low', `${program} -o writes a file`, [{ arg: out, verb: 'writes' }])
        : writes('read_only', `${program} prints`);
    }
    case 'yq': {
      const parsed = parseArgs(args, ['-o', '--output-format', '-p', '--input-format', '--from-file']);
      return hasAny(parsed, '-i', '--inplace')
        ? writes('write_low', 'yq -i edits files in place', each(parsed.operands.slice(1), 'edits'))
        : writes('read_only', 'yq prints');
    }
    default:
      return null;
  }
}
