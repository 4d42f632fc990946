import { maxRisk, type GrantPattern, type RiskLevel } from '../../shared/domain';
import { parseScript, simpleCommands, ShellSyntaxError, type Command, type Script, type Word } from './shell-parser';

export interface CommandRisk {
  readonly level: RiskLevel;
  readonly reasons: readonly string[];
}

/** Programs that only read (with the option checks below for the few that can also write). */
const readOnlyPrograms = new Set([
  'ls',
  'cat',
  'head',
  'tail',
  'less',
  'more',
  'grep',
  'egrep',
  'fgrep',
  'rg',
  'ag',
  'wc',
  'echo',
  'printf',
  'pwd',
  'which',
  'type',
  'whereis',
  'tree',
  'stat',
  'file',
  'du',
  'df',
  'date',
  'uname',
  'whoami',
  'id',
  'hostname',
  'sort',
  'uniq',
  'cut',
  'tr',
  'diff',
  'cmp',
  'comm',
  'basename',
  'dirname',
  'realpath',
  'readlink',
  'true',
  'false',
  'test',
  '[',
  'jq',
  'yq',
  'column',
  'nl',
  'od',
  'hexdump',
  'xxd',
  'md5sum',
  'sha1sum',
  'sha256sum',
  'cksum',
  'seq',
  'expr',
  'sleep',
  'ps',
  'top',
  'free',
  'uptime',
  'printenv',
  'man',
  'help',
  'locale',
  'tput',
  'fd',
  'fdfind',
  'bat',
  'cd',
  'wait',
  'lsof',
  'nproc',
  'tac',
  'rev',
  'fold',
  'fmt',
  'paste',
  'join',
]);

const gitReadOnly = new Set([
  'status',
  'log',
  'show',
  'diff',
  'blame',
  'grep',
  'ls-files',
  'ls-tree',
  'rev-parse',
  'describe',
  'shortlog',
  'reflog',
  'cat-file',
  'config',
  'remote',
  'branch',
  'tag',
  'stash',
]);
const packageReadOnly = new Set([
  'ls',
  'list',
  'view',
  'info',
  'outdated',
  'why',
  'explain',
  'help',
  'search',
  'audit',
  'config',
  'root',
  'prefix',
  'version',
  '--version',
  '-v',
]);
const shells = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'fish', 'csh', 'tcsh']);
const interpreters = new Set(['python', 'python3', 'node', 'ruby', 'perl', 'php', 'deno', 'bun', 'lua']);
const privileged = new Set(['sudo', 'doas', 'su', 'pkexec']);
const diskDestroyers = new Set(['dd', 'shred', 'wipefs', 'fdisk', 'sfdisk', 'parted', 'gdisk', 'mkswap', 'badblocks']);
const lowWriters = new Set(['mkdir', 'touch', 'cp', 'mv', 'ln', 'tee', 'patch', 'install', 'tar', 'unzip', 'zip', 'gzip', 'gunzip']);

/** Words back into a command line, quoted so that parsing it again gives the same words. */
const quoteWords = (words: readonly string[]): string =>
  words.map((word) => (/^[A-Za-z0-9_./=:,+-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`)).join(' ');

const wordsOf = (command: Extract<Command, { kind: 'simple' }>): string[] => command.words.map((word) => word.text);
const hasFlag = (args: readonly string[], ...flags: string[]): boolean =>
  args.some(
    (arg) =>
      flags.includes(arg) || (/^-[A-Za-z]+$/.test(arg) && flags.some((flag) => /^-[A-Za-z]$/.test(flag) && arg.includes(flag.slice(1)))),
  );

/** Options of command runners that take a value, so the value is not taken for the command. */
const optionValues: Record<string, readonly string[]> = {
  nice: ['-n', '--adjustment'],
  timeout: ['-s', '--signal', '-k', '--kill-after'],
  stdbuf: ['-i', '-o', '-e'],
  xargs: ['-n', '-I', '-L', '-P', '-d', '-s', '-a', '-E', '--max-args', '--max-procs', '--delimiter'],
  env: ['-u', '--unset', '-C', '--chdir'],
};

/** The command a runner (nice, timeout, env, xargs...) will run: its words after its own options. */
function commandAfterOptions(program: string, args: readonly string[]): string[] {
  const takesValue = optionValues[program] ?? [];
  let index = 0;
  while (index < args.length) {
    const arg = args[index] as string;
    if (takesValue.includes(arg)) index += 2;
    else if (arg.startsWith('-') || (program === 'env' && /^[A-Za-z_][A-Za-z0-9_]*=/.test(arg))) index += 1;
    else break;
  }
  const rest = args.slice(index);
  // timeout's first word after its options is the duration.
  return program === 'timeout' ? rest.slice(1) : rest;
}

/** The program name without a path or a leading backslash (`/bin/rm`, `\rm`). */
const programOf = (word: string): string => word.replace(/^\\/, '').split('/').pop() ?? word;

interface Finding {
  level: RiskLevel;
  reason: string;
}

function assessSimple(command: Extract<Command, { kind: 'simple' }>, depth: number): Finding[] {
  const findings: Finding[] = [];
  const words = wordsOf(command);
  for (const redirect of command.redirects) {
    const target = redirect.target.text;
    const writes = ['>', '>>', '>|', '&>', '&>>', '<>'].includes(redirect.operator);
    if (writes && target !== '/dev/null' && !/^&?\d$/.test(target))
      findings.push({ level: 'write_high', reason: `writes into ${target} with ${redirect.operator}` });
  }
  if (words.length === 0) return findings;
  const program = programOf(words[0] as string);
  const args = words.slice(1);
  const sub = args.find((arg) => !arg.startsWith('-')) ?? '';

  if (command.words[0]?.expands || command.words[0]?.substitutions.length)
    return [...findings, { level: 'write_high', reason: 'the program name is only known when it runs' }];
  if (privileged.has(program)) return [...findings, { level: 'destructive', reason: `${program} runs with raised privileges` }];
  if (diskDestroyers.has(program) || /^mkfs/.test(program))
    return [...findings, { level: 'destructive', reason: `${program} can destroy disks or files` }];

  const nested = (text: string): Finding[] => {
    if (depth > 4) return [{ level: 'destructive', reason: 'commands nested too deep to judge' }];
    const inner = assessScriptText(text, depth + 1);
    return [{ level: maxRisk([inner.level, 'write_high']), reason: `runs code: ${inner.reasons.join('; ') || 'a command'}` }];
  };

  switch (program) {
    case 'rm': {
      if (hasFlag(args, '-r', '-R', '--recursive') || args.some((arg) => arg.startsWith('--recursive')))
        findings.push({ level: 'destructive', reason: 'rm -r deletes whole folders' });
      else if (command.words.slice(1).some((word) => word.expands))
        findings.push({ level: 'destructive', reason: 'rm with a pattern deletes files not named' });
      else findings.push({ level: 'write_high', reason: 'rm deletes files for good' });
      break;
    }
    case 'rmdir':
    case 'unlink':
      findings.push({ level: 'write_high', reason: `${program} deletes` });
      break;
    case 'find':
      if (args.includes('-delete')) findings.push({ level: 'destructive', reason: 'find -delete deletes what it finds' });
      else if (args.some((arg) => ['-exec', '-execdir', '-ok', '-okdir'].includes(arg))) {
        const index = args.findIndex((arg) => arg.startsWith('-exec') || arg.startsWith('-ok'));
        const inner = args
          .slice(index + 1, args.indexOf(';', index) === -1 ? undefined : args.indexOf(';', index))
          .filter((arg) => arg !== '{}' && arg !== '+');
        // Whatever -exec runs, it runs on every file found: deleting that way deletes many.
        if (['rm', 'shred', 'unlink'].includes(programOf(inner[0] ?? '')))
          findings.push({ level: 'destructive', reason: `find -exec ${inner[0]} deletes every file it finds` });
        else findings.push(...nested(quoteWords(inner)));
      } else if (args.some((arg) => ['-fprint', '-fprintf', '-fls'].includes(arg)))
        findings.push({ level: 'write_low', reason: 'find writes its list to a file' });
      else findings.push({ level: 'read_only', reason: 'find lists files' });
      break;
    case 'git': {
      const gitArgs = args.filter(
        (arg) => !arg.startsWith('-') || arg === '--force' || arg === '-f' || arg === '--hard' || arg.startsWith('--force'),
      );
      const verb = args.find((arg) => !arg.startsWith('-')) ?? '';
      if (verb === 'clean') findings.push({ level: 'destructive', reason: 'git clean deletes untracked files' });
      else if (verb === 'reset' && args.includes('--hard'))
        findings.push({ level: 'destructive', reason: 'git reset --hard discards changes' });
      else if (
        verb === 'push' &&
        args.some((arg) => arg === '-f' || arg.startsWith('--force') || arg.startsWith('+') || arg === '--delete' || arg === '--mirror')
      )
        findings.push({ level: 'destructive', reason: 'a forced push rewrites the remote' });
      else if ((verb === 'checkout' || verb === 'restore') && (args.includes('.') || args.includes('--') || hasFlag(args, '-f', '--force')))
        findings.push({ level: 'destructive', reason: `git ${verb} can discard uncommitted changes` });
      else if (verb === 'branch' && hasFlag(args, '-D', '--delete', '-d'))
        findings.push({ level: 'destructive', reason: 'git branch -D deletes a branch' });
      else if (verb === 'stash') {
        const action = args[args.indexOf('stash') + 1] ?? '';
        if (['drop', 'clear'].includes(action)) findings.push({ level: 'destructive', reason: 'git stash drop loses stashed work' });
        else if (['list', 'show'].includes(action)) findings.push({ level: 'read_only', reason: `git stash ${action} only reads` });
        else findings.push({ level: 'write_low', reason: 'git stash changes the working tree' });
      } else if (
        ['branch', 'tag', 'remote', 'config', 'stash'].includes(verb) &&
        args.length > 1 &&
        !hasFlag(args, '-l', '--list', '-v', '-a', '--show-current', '--get', '-r')
      )
        findings.push({ level: 'write_low', reason: `git ${verb} changes the repository` });
      else if (gitReadOnly.has(verb)) findings.push({ level: 'read_only', reason: `git ${verb} only reads` });
      else if (
        [
          'add',
          'commit',
          'switch',
          'checkout',
          'mv',
          'restore',
          'init',
          'apply',
          'cherry-pick',
          'revert',
          'merge',
          'rebase',
          'am',
          'rm',
        ].includes(verb)
      )
        findings.push({ level: verb === 'rm' ? 'write_high' : 'write_low', reason: `git ${verb} changes the repository` });
      else findings.push({ level: 'write_high', reason: `git ${verb || gitArgs.join(' ')} can change the repository or the remote` });
      break;
    }
    case 'npm':
    case 'pnpm':
    case 'yarn':
    case 'bun':
      if (packageReadOnly.has(sub) || args.length === 0) findings.push({ level: 'read_only', reason: `${program} ${sub} only reads` });
      else findings.push({ level: 'write_high', reason: `${program} ${sub} runs package scripts or installs code` });
      break;
    case 'sed':
      findings.push(
        hasFlag(args, '-i') || args.some((arg) => arg.startsWith('--in-place'))
          ? { level: 'write_low', reason: 'sed -i edits files in place' }
          : { level: 'read_only', reason: 'sed prints' },
      );
      break;
    case 'sort':
      findings.push(
        hasFlag(args, '-o') || args.some((arg) => arg.startsWith('--output'))
          ? { level: 'write_low', reason: 'sort -o writes a file' }
          : { level: 'read_only', reason: 'sort prints' },
      );
      break;
    case 'curl':
    case 'wget':
      findings.push({ level: 'write_high', reason: `${program} reaches the network` });
      break;
    case 'xargs': {
      const inner = commandAfterOptions(program, args);
      if (inner.length === 0) findings.push({ level: 'read_only', reason: 'xargs alone echoes' });
      else if (['rm', 'shred', 'unlink'].includes(programOf(inner[0] ?? '')))
        findings.push({ level: 'destructive', reason: `xargs ${inner[0]} deletes every file it is given` });
      else findings.push(...nested(quoteWords(inner)));
      break;
    }
    case 'eval':
      findings.push(...nested(args.join(' ')));
      break;
    case 'exec':
    case 'nohup':
    case 'timeout':
    case 'nice':
    case 'time':
    case 'command':
    case 'builtin':
    case 'stdbuf':
    case 'env': {
      // These run the rest of their words as a command: judge that command.
      const rest = commandAfterOptions(program, args);
      if (rest.length === 0) {
        findings.push({ level: 'read_only', reason: `${program} alone only reads` });
        break;
      }
      const inner = assessScriptText(quoteWords(rest), depth + 1);
      findings.push({ level: inner.level, reason: `${program} runs ${rest[0]}: ${inner.reasons.join('; ')}` });
      break;
    }
    case 'chmod':
    case 'chown':
    case 'chgrp':
      findings.push(
        hasFlag(args, '-R', '--recursive')
          ? { level: 'destructive', reason: `${program} -R changes a whole tree` }
          : { level: 'write_high', reason: `${program} changes permissions` },
      );
      break;
    case 'kill':
    case 'pkill':
    case 'killall':
      findings.push({ level: 'write_high', reason: `${program} stops processes` });
      break;
    case 'truncate':
      findings.push({ level: 'destructive', reason: 'truncate destroys file contents' });
      break;
    default:
      if (shells.has(program)) {
        const index = args.indexOf('-c');
        if (index !== -1 && args[index + 1] !== undefined) findings.push(...nested(args[index + 1] as string));
        else findings.push({ level: 'write_high', reason: `${program} runs a script` });
      } else if (interpreters.has(program)) findings.push({ level: 'write_high', reason: `${program} runs code` });
      else if (readOnlyPrograms.has(program)) findings.push({ level: 'read_only', reason: `${program} only reads` });
      else if (lowWriters.has(program)) findings.push({ level: 'write_low', reason: `${program} writes files` });
      else findings.push({ level: 'write_high', reason: `${program} is not known to be safe` });
  }
  return findings;
}

function assessScript(script: Script, depth: number): Finding[] {
  const findings: Finding[] = [];
  for (const { background, andOr } of script.items) {
    if (background) findings.push({ level: 'write_high', reason: 'a background job keeps running after the call' });
    for (const pipeline of andOr.pipelines) {
      const last = pipeline.commands.at(-1);
      for (const command of pipeline.commands) {
        if (command.kind !== 'simple' || command !== last || pipeline.commands.length < 2) continue;
        const program = programOf(command.words[0]?.text ?? '');
        if (shells.has(program) || interpreters.has(program))
          findings.push({ level: 'destructive', reason: `piping into ${program} runs whatever the pipe carries` });
      }
    }
  }
  for (const command of simpleCommands(script)) findings.push(...assessSimple(command, depth));
  return findings;
}

function assessScriptText(text: string, depth: number): CommandRisk {
  try {
    return summarize(assessScript(parseScript(text), depth));
  } catch (error) {
    if (error instanceof ShellSyntaxError) return { level: 'write_high', reasons: [`it could not be parsed (${error.message})`] };
    throw error;
  }
}

function summarize(findings: Finding[]): CommandRisk {
  const level = maxRisk(findings.map((finding) => finding.level));
  const reasons = [...new Set(findings.filter((finding) => finding.level === level).map((finding) => finding.reason))];
  return { level, reasons };
}

/**
 * The risk of a command line, from its parse: the highest of its commands, redirections, pipes
 * into shells, background jobs and substitutions. It is `read_only` only when nothing in it can
 * write; an unknown program is `write_high`; a line that does not parse is `write_high`.
 */
export function assessCommand(command: string): CommandRisk {
  return assessScriptText(command, 0);
}

/** One plain simple command: no redirection, substitution, expansion, pipe, list or background. */
function plainWords(command: string): string[] | null {
  try {
    const script = parseScript(command);
    if (script.items.length !== 1) return null;
    const item = script.items[0];
    if (!item || item.background || item.andOr.pipelines.length !== 1) return null;
    const pipeline = item.andOr.pipelines[0];
    if (!pipeline || pipeline.negated || pipeline.commands.length !== 1) return null;
    const only = pipeline.commands[0];
    if (!only || only.kind !== 'simple' || only.redirects.length > 0 || only.assignments.length > 0) return null;
    if (only.words.some((word: Word) => word.expands || word.substitutions.length > 0)) return null;
    return only.words.map((word) => word.text);
  } catch {
    return null;
  }
}

const subcommandPattern = /^[a-z][a-z0-9-]*$/;

/**
 * The trust pattern for a command someone approved. A plain simple command gives its program and,
 * when the second word is a subcommand (`git show`, `npm test`), that too; anything else is trusted
 * only as its exact text. A pattern never covers operators, redirections or substitutions.
 */
export function commandTrustPattern(command: string): GrantPattern {
  const words = plainWords(command);
  if (!words || words.length === 0) return { kind: 'exact', arguments: command };
  const [program, second] = words as [string, string | undefined];
  return { kind: 'command_prefix', words: second !== undefined && subcommandPattern.test(second) ? [program, second] : [program] };
}

/** Whether a grant's pattern covers a command: a plain simple command that starts with the same words. */
export function commandTrustCovers(pattern: GrantPattern, command: string): boolean {
  if (pattern.kind === 'exact') return pattern.arguments === command;
  const words = plainWords(command);
  return words !== null && pattern.words.every((word, index) => words[index] === word);
}
