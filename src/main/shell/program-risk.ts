/*
 * The risk of one program run with its arguments: known destroyers, writers by their targets, runners by what they run,
 * code as code.
 */

import { hasAny, parseArgs, type Arg, type Finding, type ParsedArgs } from './command-args';
import {
  diskTools,
  gitReadOnly,
  gitWritesLittle,
  interpreters,
  mountTools,
  packageManagers,
  packageReadOnly,
  powerTools,
  privileged,
  readOnlyPrograms,
  runnerOptionValues,
  runners,
  shells,
  systemChangers,
} from './program-sets';
import type { RepositoryProgram } from './command-targets';
import { argTargets } from './write-targets';

/** What judging one program needs from the command around it. */
export interface ProgramSite {
  /**
   * Findings for a path the command writes: outside the workspace, protected or only known when it runs raise the risk.
   * `from`: a relative path is read from that path's folder (a symbolic link's target), not the current one.
   */
  target(arg: Arg, verb: string, from?: Arg): Finding[];
  /** Findings for a command line this one runs (`sh -c`, `eval`, `watch`); null when the line is only known when it runs. */
  nested(text: string | null, what: string): Finding[];
  /** Findings for words this one runs as a command (`env`, `timeout`, `xargs`). */
  runs(words: readonly Arg[], what: string): Finding[];
  /**
   * The programs the repository a git command works in names for git to run (its configuration, its hooks), from the
   * folder the line is in or the one given (`-C`, `--git-dir`); null when that folder is only known when it runs.
   */
  repositoryPrograms(at: Arg | undefined): readonly RepositoryProgram[] | null;
  /** Whether the command runs in an OS sandbox: without one, a program the repository names runs with the person's rights. */
  readonly sandboxed: boolean;
  /** Whether the workspace is a folder the person does not trust: what its repository names is then destructive. */
  readonly untrusted?: boolean;
}

/** The words after a runner's own options: options stop at the first word that is not one, as for POSIX tools. */
export function afterOptions(args: readonly Arg[], takesValue: readonly string[]): readonly Arg[] {
  let index = 0;
  while (index < args.length) {
    const text = args[index]?.text;
    if (text === null || text === undefined || !text.startsWith('-')) break;
    index += takesValue.includes(text) ? 2 : 1;
    if (text === '--') break;
  }
  return args.slice(index);
}

/** The program name without a path or a leading backslash (`/bin/rm`, `\rm`). */
export const programOf = (word: string): string => word.replace(/^\\/, '').split('/').pop() ?? word;

const finding = (level: Finding['level'], reason: string): Finding => ({ level, reason });

function killRisk(program: string, parsed: ParsedArgs, args: readonly Arg[]): Finding {
  if (program !== 'kill') return finding('destructive', `${program} stops processes by name, anywhere on the system`);
  // The first option is the signal (`-9`, `-s KILL`); every word after it is a process, and -1 is all of them.
  let index = 0;
  if (args[0]?.text === '-s' || args[0]?.text === '-n') index = 2;
  else if (args[0]?.text?.startsWith('-') && args[0].text !== '--') index = 1;
  if (args[index]?.text === '--') index += 1;
  const targets = args.slice(index);
  if (targets.some((arg) => arg.text === '-1')) return finding('destructive', 'kill -1 signals every process you own');
  if (targets.some((arg) => arg.text !== null && /^-\d+$/.test(arg.text) && arg.text !== '-0'))
    return finding('destructive', 'kill with a negative number signals a whole process group');
  if (parsed.flags.has('-l') || parsed.flags.has('-L')) return finding('read_only', 'kill -l lists signals');
  return finding('write_high', 'kill stops processes');
}

/** Options with which a program that otherwise reads runs a command it is given. */
const runsCommandOption: Readonly<Record<string, readonly string[]>> = {
  man: ['-P', '--pager', '-H', '--html'],
  fd: ['-x', '-X', '--exec', '--exec-batch'],
  fdfind: ['-x', '-X', '--exec', '--exec-batch'],
  rg: ['--pre'],
  compgen: ['-C'],
  hash: ['-p'],
  sort: ['--compress-program'],
  less: ['-+', '--lesskey-file'],
  zip: ['-TT', '--unzip-command'],
};

/** git settings whose value is a command git runs. */
const commandSetting =
  /^[\w.-]*\.(pager|editor|sshcommand|fsmonitor|hookspath|external|textconv|helper|command|program|askpass|driver|cmd|tool)$/i;

/**
 * What a git command risks through the programs its repository names: at least a high-risk write, destructive without
 * a sandbox (the program runs with the person's rights). A repository in a folder only known when it runs may name any.
 */
function repositoryFindings(verb: string, programs: readonly RepositoryProgram[] | null, site: ProgramSite): Finding[] {
  const level = site.sandboxed && site.untrusted !== true ? 'write_high' : 'destructive';
  if (programs === null)
    return [finding(level, `git ${verb} works in a repository only known when it runs, whose configuration may name programs git runs`)];
  const started = programs.filter((program) => program.verbs === 'every' || program.verbs.includes(verb));
  if (started.length === 0) return [];
  const named = started.slice(0, 3).map((program) => program.source);
  const more = started.length > 3 ? ` and ${started.length - 3} more` : '';
  const why = site.untrusted === true ? ', in a folder you have not trusted' : '';
  return [finding(level, `git${verb ? ` ${verb}` : ''} runs programs the repository names (${named.join('; ')}${more})${why}`)];
}

function gitRisk(args: readonly Arg[], site: ProgramSite): Finding[] {
  const parsed = parseArgs(args, ['-C', '-c', '--git-dir', '--work-tree', '--namespace']);
  const findings: Finding[] = [];
  // Settings that name a command git runs (`-c core.pager=…`, `-c alias.x='!…'`).
  const settings = args.flatMap((arg, index) => (args[index - 1]?.text === '-c' ? [arg] : []));
  for (const setting of settings) {
    const text = setting.text;
    if (text === null) findings.push(finding('destructive', 'git -c sets a value only known when it runs'));
    else if (commandSetting.test(text.split('=')[0] ?? '') || /^alias\.[^=]*=!/.test(text))
      findings.push(...site.nested(text.slice(text.indexOf('=') + 1).replace(/^!/, ''), `git -c ${text.split('=')[0]}`));
  }
  for (const option of ['-C', '--git-dir', '--work-tree']) {
    const place = parsed.values.get(option);
    if (place) findings.push(...site.target(place, `works on the repository at`));
  }
  const words = parsed.operands.map((arg) => arg.text ?? '');
  const verb = words[0] ?? '';
  // Several places (`-C a -C b`, `-C a --git-dir=b`) chain as git reads them: not followed, the repository is unknown.
  const places = args.filter((arg) => arg.text !== null && /^(-C|--git-dir|--work-tree)/.test(arg.text)).length;
  const at = parsed.values.get('-C') ?? parsed.values.get('--git-dir');
  findings.push(...repositoryFindings(verb, places > 1 ? null : site.repositoryPrograms(at), site));
  const rest = args.slice(args.findIndex((arg) => arg.text === verb) + 1);
  const sub = parseArgs(rest, ['-m', '-b', '-B', '-o', '-c', '-C', '--message', '--file', '-F', '-f', '--output', '--output-directory']);
  const flag = (...flags: string[]) => hasAny(sub, ...flags);
  const next = sub.operands[0]?.text ?? '';
  if (verb === 'clean') findings.push(finding('destructive', 'git clean deletes untracked files'));
  else if (verb === 'reset' && flag('--hard', '--merge', '--keep'))
    findings.push(finding('destructive', 'git reset --hard discards changes'));
  else if (
    verb === 'push' &&
    (flag('-f', '--force', '--force-with-lease', '--force-if-includes', '--delete', '-d', '--mirror', '--prune') ||
      sub.operands.some((arg) => arg.text?.startsWith('+') || arg.text?.startsWith(':')))
  )
    findings.push(finding('destructive', 'a forced push rewrites the remote'));
  else if (
    (verb === 'checkout' || verb === 'restore') &&
    (words.includes('.') || args.some((arg) => arg.text === '--') || flag('-f', '--force', '--worktree', '-W'))
  )
    findings.push(finding('destructive', `git ${verb} can discard uncommitted changes`));
  else if (verb === 'switch' && flag('-f', '--force', '--discard-changes', '-C'))
    findings.push(finding('destructive', 'git switch --discard-changes loses uncommitted changes'));
  else if (verb === 'branch' && flag('-D', '--delete', '-d', '-M', '-C'))
    findings.push(finding('destructive', 'git branch -D deletes a branch'));
  else if (verb === 'tag' && flag('-d', '--delete', '-f', '--force')) findings.push(finding('destructive', 'git tag -d deletes a tag'));
  else if (verb === 'stash') {
    if (['drop', 'clear'].includes(next)) findings.push(finding('destructive', 'git stash drop loses stashed work'));
    else if (['list', 'show'].includes(next)) findings.push(finding('read_only', `git stash ${next} only reads`));
    else findings.push(finding('write_low', 'git stash changes the working tree'));
  } else if (
    ['gc', 'prune', 'filter-branch', 'filter-repo', 'update-ref', 'replace'].includes(verb) ||
    (verb === 'reflog' && ['expire', 'delete'].includes(next))
  )
    findings.push(finding('destructive', `git ${verb} can lose history`));
  else if (
    verb === 'config' &&
    (flag('--global', '--system') || sub.values.has('--file') || sub.values.has('-f')) &&
    sub.operands.length > 1
  )
    findings.push(finding('destructive', 'git config --global writes settings outside the workspace'));
  else if (
    verb === 'config' &&
    sub.operands.some((arg) => arg.text !== null && (commandSetting.test(arg.text) || /^alias\./i.test(arg.text)))
  )
    findings.push(finding('write_high', 'git config sets a command git will run'));
  else if (
    ['branch', 'tag', 'remote', 'config'].includes(verb) &&
    sub.operands.length > 0 &&
    !flag('-l', '--list', '-v', '-vv', '-a', '--show-current', '--get', '--get-all', '-r', '--contains', '--merged')
  )
    findings.push(finding('write_low', `git ${verb} changes the repository`));
  else if (gitReadOnly.has(verb)) {
    findings.push(finding('read_only', `git ${verb} only reads`));
    if (verb === 'grep' && args.some((arg) => arg.text === '-O' || arg.text?.startsWith('--open-files-in-pager')))
      findings.push(finding('destructive', 'git grep -O runs a pager command'));
    const output =
      sub.values.get('-o') ??
      sub.values.get('--output') ??
      (verb === 'log' || verb === 'show' || verb === 'diff' ? sub.values.get('--output') : undefined);
    if (output) findings.push(finding('write_low', `git ${verb} writes ${output.source}`), ...site.target(output, 'writes'));
  } else if (gitWritesLittle.has(verb)) findings.push(finding('write_low', `git ${verb} changes the repository`));
  else if (verb === 'rm') findings.push(finding('write_high', 'git rm deletes files'));
  else if (['archive', 'format-patch', 'bundle'].includes(verb)) {
    findings.push(finding('write_low', `git ${verb} writes files`));
    const output = sub.values.get('-o') ?? sub.values.get('--output') ?? sub.values.get('--output-directory');
    if (output) findings.push(...site.target(output, 'writes'));
  } else if (verb === 'worktree' || verb === 'init') {
    findings.push(finding('write_low', `git ${verb} makes a working tree`));
    const place = verb === 'worktree' ? sub.operands[1] : sub.operands[0];
    if (place) findings.push(...site.target(place, 'makes a repository at'));
  } else if (verb === 'clone') {
    findings.push(finding('write_high', 'git clone reaches the network and writes a copy'));
    const into = sub.operands[1];
    if (into) findings.push(...site.target(into, 'clones into'));
  } else findings.push(finding('write_high', `git ${verb || 'with these options'} can change the repository or the remote`));
  return findings;
}

function packageRisk(program: string, args: readonly Arg[], site: ProgramSite): Finding[] {
  const parsed = parseArgs(args, ['--prefix', '-C', '--dir', '--cwd', '--filter', '-w', '--workspace']);
  const sub = parsed.operands[0]?.text ?? '';
  const findings: Finding[] = [];
  const prefix = parsed.values.get('--prefix') ?? parsed.values.get('-C') ?? parsed.values.get('--dir') ?? parsed.values.get('--cwd');
  if (prefix) findings.push(...site.target(prefix, 'works in'));
  if (hasAny(parsed, '-g', '--global') || (program === 'yarn' && sub === 'global'))
    findings.push(finding('destructive', `${program} ${sub} -g installs outside the workspace, for every project`));
  else if (['config', 'c'].includes(sub) && ['set', 'delete', 'edit', 'fix'].includes(parsed.operands[1]?.text ?? ''))
    findings.push(finding('destructive', `${program} config ${parsed.operands[1]?.text} writes its settings outside the workspace`));
  else if (sub === 'audit' && parsed.operands[1]?.text === 'fix')
    findings.push(finding('write_high', `${program} audit fix installs code`));
  else if (['npx', 'pnpx', 'bunx'].includes(program) && args.length > 0)
    findings.push(finding('write_high', `${program} runs a package's program`));
  else if (packageReadOnly.has(sub) || (args.length === 0 && !['npx', 'pnpx', 'bunx'].includes(program)))
    findings.push(finding('read_only', `${program} ${sub} only reads`));
  else findings.push(finding('write_high', `${program} ${sub} runs package scripts or installs code`));
  return findings;
}

/** Targets of the commands that write files, from the table in write-targets.ts. */
function writerRisk(program: string, args: readonly Arg[], site: ProgramSite): Finding[] | null {
  const targets = argTargets(program, args);
  if (!targets) return null;
  return [
    finding(targets.level, targets.reason),
    ...targets.paths.flatMap((path) => site.target(path.arg, path.verb, path.from)),
    ...targets.extra,
    ...(targets.runs ?? []).flatMap((text) => site.nested(text, `${program} runs a command`)),
  ];
}

/**
 * The risk of one program run with these arguments: known destroyers, writers judged by their targets,
 * runners judged by what they run, code judged as code. Unknown programs are write_high.
 */
export function programRisk(program: string, args: readonly Arg[], site: ProgramSite): Finding[] {
  const parsed = parseArgs(args);
  if (privileged.has(program)) return [finding('destructive', `${program} runs with raised privileges`)];
  if (diskTools.has(program) || /^mkfs/.test(program)) return [finding('destructive', `${program} can destroy disks or files`)];
  if (mountTools.has(program)) return [finding('destructive', `${program} changes what is mounted on the system`)];
  if (powerTools.has(program)) return [finding('destructive', `${program} stops or restarts the machine`)];
  if (systemChangers.has(program)) return [finding('destructive', `${program} changes the system, outside the workspace`)];
  if (['kill', 'pkill', 'killall', 'killall5', 'skill', 'slay'].includes(program)) return [killRisk(program, parsed, args)];
  if (program === 'systemctl' || program === 'loginctl' || program === 'service') {
    const verb = parsed.operands.find((arg) => arg.text !== null)?.text ?? '';
    return /^(status|show|list-.*|is-.*|cat|help|get-.*)$/.test(verb) || verb === ''
      ? [finding('read_only', `${program} ${verb} only reads`)]
      : [finding('destructive', `${program} ${verb} changes system services or sessions`)];
  }
  if (program === 'crontab')
    return hasAny(parsed, '-l')
      ? [finding('read_only', 'crontab -l lists')]
      : [finding('destructive', 'crontab schedules commands outside the session')];
  if (program === 'git') return gitRisk(args, site);
  if (packageManagers.has(program)) return packageRisk(program, args, site);
  if (program === 'alias') {
    // An alias runs its text wherever its name is used later (with expand_aliases on).
    const definitions = args.filter((arg) => arg.text?.includes('='));
    if (definitions.length === 0) return [finding('read_only', 'alias lists aliases')];
    return definitions.flatMap((arg) => site.nested(arg.text === null ? null : arg.text.slice(arg.text.indexOf('=') + 1), 'alias'));
  }
  if (program === 'eval') {
    const words = (args[0]?.text === '--' ? args.slice(1) : args).map((arg) => arg.text);
    return words.every((word) => word !== null) ? site.nested(words.join(' '), 'eval') : site.nested(null, 'eval');
  }
  if (program === 'trap') {
    const rest = args[0]?.text === '--' ? args.slice(1) : args;
    if (rest.length < 2 || rest[0]?.text === '-l' || rest[0]?.text === '-p') return [finding('read_only', 'trap lists')];
    return site.nested(rest[0]?.text ?? null, 'trap');
  }
  if (program === 'watch') {
    const command = parseArgs(args, ['-n', '--interval', '-d']).operands;
    return site.nested(command.every((arg) => arg.text !== null) ? command.map((arg) => arg.text).join(' ') : null, 'watch');
  }
  if (program === 'source' || program === '.') {
    const file = args[0];
    if (file?.text?.startsWith('/dev/fd/') || file?.text === '/dev/stdin')
      return [finding('destructive', `${program} runs code that arrives through a pipe`)];
    return [finding('write_high', `${program} runs the script ${file?.source ?? ''}`.trim())];
  }
  if (program === 'xargs') {
    const inner = afterOptions(args, runnerOptionValues['xargs'] ?? []);
    if (inner.length === 0) return [finding('read_only', 'xargs alone echoes')];
    if (['rm', 'shred', 'unlink'].includes(programOf(inner[0]?.text ?? '')))
      return [finding('destructive', `xargs ${inner[0]?.text} deletes every file it is given`)];
    if (shells.has(programOf(inner[0]?.text ?? '')) && inner.some((arg) => arg.text?.includes('{}')))
      return [finding('destructive', 'xargs runs text from its input as shell code')];
    return site.runs(inner, 'xargs');
  }
  if (program === 'env') {
    // `env -S '…'` splits its text into a command; `env -C DIR` runs it in another folder.
    const split = args.findIndex((arg) => arg.text === '-S' || arg.text === '--split-string' || arg.text?.startsWith('--split-string='));
    if (split !== -1) {
      const text = args[split]?.text?.startsWith('--split-string=') ? args[split]?.text?.slice(15) : args[split + 1]?.text;
      return site.nested(text ?? null, 'env -S');
    }
    if (args.some((arg) => arg.text === '-C' || arg.text === '--chdir' || arg.text?.startsWith('--chdir=')))
      return [finding('destructive', 'env -C runs the command in another folder, which is not followed')];
  }
  if (runners.has(program)) return site.runs(args, program);
  if (shells.has(program)) {
    const flagged = args.findIndex((arg) => arg.text !== null && /^-[a-zA-Z]*c[a-zA-Z]*$/.test(arg.text));
    if (flagged !== -1) {
      const code = args[flagged + 1]?.text === '--' ? args[flagged + 2] : args[flagged + 1];
      return site.nested(code?.text ?? null, `${program} -c`);
    }
    const script = parsed.operands[0];
    if (script?.text?.startsWith('/dev/fd/') || script?.text === '/dev/stdin')
      return [finding('destructive', `${program} runs code that arrives through a pipe`)];
    return [finding('write_high', `${program} runs a script`)];
  }
  const runsGiven = runsCommandOption[program];
  if (
    runsGiven &&
    args.some((arg) => arg.text === null || runsGiven.some((option) => arg.text === option || arg.text?.startsWith(`${option}=`)))
  )
    return [finding('destructive', `${program} runs a command given in its options`)];
  if (program === 'find') return findRisk(args, site);
  const writer = writerRisk(program, args, site);
  if (writer) return writer;
  if (program === 'curl' || program === 'wget') return [finding('write_high', `${program} reaches the network`)];
  if (interpreters.has(program)) return [finding('write_high', `${program} runs code`)];
  if (program === 'history' && args.some((arg) => /^-[a-z]*[wan]/.test(arg.text ?? '')))
    return [finding('write_high', 'history writes its file')];
  if (readOnlyPrograms.has(program)) return [finding('read_only', `${program} only reads`)];
  return [finding('write_high', `${program} is not known to be safe`)];
}

function findRisk(args: readonly Arg[], site: ProgramSite): Finding[] {
  const words = args.map((arg) => arg.text);
  const findings: Finding[] = [];
  // Leading -H, -L, -P (how links are followed) come before the folders to search.
  let first = 0;
  while (args[first]?.text !== undefined && /^-([HLP]|O\d*|D)$/.test(args[first]?.text ?? '')) first += args[first]?.text === '-D' ? 2 : 1;
  const rest = args.slice(first);
  const end = rest.findIndex((arg) => arg.text === null || arg.text.startsWith('-') || arg.text === '(' || arg.text === '!');
  const starts = end === -1 ? rest : rest.slice(0, end);
  const acts = words.some((word) => word === '-delete' || word?.startsWith('-exec') || word?.startsWith('-ok'));
  if (acts) for (const start of starts) findings.push(...site.target(start, 'acts on files under'));
  for (const option of ['-fprint', '-fprint0', '-fprintf', '-fls']) {
    const at = words.indexOf(option);
    const file = at === -1 ? undefined : args[at + 1];
    if (file) findings.push(finding('write_low', 'find writes its list to a file'), ...site.target(file, 'writes'));
  }
  if (words.includes('-delete')) return [...findings, finding('destructive', 'find -delete deletes what it finds')];
  const execAt = words.findIndex((word) => word !== null && /^-(exec|execdir|ok|okdir)$/.test(word));
  if (execAt !== -1) {
    const end = words.findIndex((word, index) => index > execAt && (word === ';' || word === '+'));
    // `{}` stands for each file found: a path only known when it runs, kept in its place so the other words keep theirs.
    const found: Arg = { value: { kind: 'computed', why: 'each file find finds' }, text: null, source: '{}', glob: false };
    const inner = args.slice(execAt + 1, end === -1 ? undefined : end).map((arg) => (arg.text === '{}' ? found : arg));
    if (['rm', 'shred', 'unlink'].includes(programOf(inner[0]?.text ?? '')))
      return [...findings, finding('destructive', `find -exec ${inner[0]?.text} deletes every file it finds`)];
    return [...findings, ...site.runs(inner, 'find -exec')];
  }
  return findings.length > 0 ? findings : [finding('read_only', 'find lists files')];
}
