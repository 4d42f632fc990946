/*
 * The `run_command` tool: a shell command in the workspace, judged for risk and run in a pty, in the sandbox where
 * there is one.
 */

import { z } from 'zod';
import { defaultCommandLimits, maxRisk, type CommandLimits, type Settings } from '../../shared/domain';
import { WorkbenchError } from '../../shared/errors';
import { defineTool, type Tool } from '../agent/ports/tools';
import type { BashParser } from '../shell/bash-parser';
import { CommandAssessor, commandPlace, currentUser } from '../shell/command-risk';
import type { RepositoryProgram } from '../shell/command-targets';
import { commandTrustCovers, commandTrustPattern } from '../shell/trust-pattern';
import { limitNote, outputLimitNote, resourceLimitsFor } from './command-limits';
import type { CommandShell } from './command-shell';
import { runInPty } from './pty-runner';
import { sandboxBlock, sandboxWrapper, type SandboxStatus } from './sandbox';

/** Variables a command may see; everything else (keys, tokens, the app's own settings) is left out. */
const passedVariables = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TMPDIR',
  'EDITOR',
  'VISUAL',
  'COLORTERM',
  'DISPLAY',
  'WAYLAND_DISPLAY',
  'XDG_RUNTIME_DIR',
];

/**
 * What Windows programs need besides: where Windows and the person's folders are, and how programs are found. Without
 * SystemRoot many fail to start (sockets, cryptography), and Git's bash makes HOME from USERPROFILE.
 */
const windowsVariables = [
  'SystemRoot',
  'SystemDrive',
  'windir',
  'ComSpec',
  'PATHEXT',
  'TEMP',
  'TMP',
  'USERPROFILE',
  'USERNAME',
  'USERDOMAIN',
  'HOMEDRIVE',
  'HOMEPATH',
  'APPDATA',
  'LOCALAPPDATA',
  'ProgramData',
  'ProgramFiles',
  'ProgramFiles(x86)',
  'ProgramW6432',
  'CommonProgramFiles',
  'NUMBER_OF_PROCESSORS',
  'PROCESSOR_ARCHITECTURE',
  'OS',
].map((name) => name.toLowerCase());

/**
 * The environment of a command: the allowed variables, a terminal, and no pagers or prompts. On Windows names are
 * compared without case, as Windows does (its PATH is often spelled `Path`).
 */
export function scrubbedEnvironment(
  source: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): Record<string, string> {
  const env: Record<string, string> = {};
  const windows = platform === 'win32';
  const passed = windows ? [...passedVariables.map((name) => name.toLowerCase()), ...windowsVariables] : passedVariables;
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined) continue;
    const key = windows ? name.toLowerCase() : name;
    if (passed.includes(key) || name.startsWith('LC_')) env[name] = value;
  }
  return { ...env, TERM: 'xterm-256color', PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0', NO_UPDATE_NOTIFIER: '1' };
}

/** Escape sequences of a terminal, removed from what the model reads. */
const ansi = new RegExp(
  String.raw`\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(\u0007|\u001b\\)|\u001b[()][A-Za-z0-9]|\u001b[=>78]`,
  'g',
);

export function plainText(output: string): string {
  return output
    .replace(ansi, '')
    .replace(/\r\n/g, '\n')
    .replace(/\r(?!\n)/g, '\n');
}

export interface RunCommandOptions {
  /** Bash's grammar, loaded once: every command is judged from its parse. */
  readonly shell: BashParser;
  readonly defaultTimeoutMs?: number;
  readonly maxTimeoutMs?: number;
  /** The OS sandbox, when there is one; without it every command counts as at least write_high. */
  readonly sandbox?: SandboxStatus;
  /** Folders inside a workspace that commands may not write (the app's data). */
  readonly protectedFolders?: readonly string[];
  /** How much lower a command's CPU priority is than the app's, asked as each starts; 10 unless said (0: the same). */
  readonly niceness?: () => number;
  /** The resources a command may use, asked as each starts; the defaults unless said. */
  readonly limits?: () => CommandLimits;
  /** What the git repository at a folder would start (its settings, its hooks): a line running git is judged with it. */
  readonly repositoryPrograms?: (folder: string) => readonly RepositoryProgram[];
  /** Whether a workspace is a folder the person does not trust: git programs its repository names are then destructive. */
  readonly restricted?: (workspacePath: string) => boolean;
  /** The bash commands run in (found on this system; Git for Windows' bash on Windows); `/bin/bash` unless given. */
  readonly commandShell?: Extract<CommandShell, { available: true }>;
  /** The system commands run on; this one unless given. */
  readonly platform?: NodeJS.Platform;
}

/** How much lower than the app's the settings put the agent's commands' CPU priority. */
export function commandNiceness(settings: Pick<Settings, 'commandPriority'>): number {
  return settings.commandPriority === 'normal' ? 0 : 10;
}

/** run_command: a shell command in the workspace, in a pty, with live output. */
export function runCommandTool(options: RunCommandOptions): Tool {
  const defaultTimeout = options.defaultTimeoutMs ?? 120_000;
  const sandbox = options.sandbox?.available === true ? options.sandbox : null;
  const maxTimeout = options.maxTimeoutMs ?? 30 * 60_000;
  const platform = options.platform ?? process.platform;
  // Looked up once: the user database can be slow to ask.
  const user = currentUser();
  const assessor = new CommandAssessor(options.shell);
  return defineTool({
    name: 'run_command',
    description: `Runs a shell command (${options.commandShell?.kind === 'git-bash' ? "bash: Git for Windows' bash, where paths may be written C:/x or /c/x" : 'bash'}) in the workspace folder and returns its output and exit code. Commands cannot read input. Times out after ${Math.round(defaultTimeout / 1000)} s unless timeoutSeconds says otherwise. Processes it starts are stopped when it ends. It runs under limits the person sets (memory and CPU time per process, processes at once, output size); the result says when one stopped it.`,
    input: z
      .object({
        command: z.string().min(1).max(20_000),
        timeoutSeconds: z
          .number()
          .int()
          .min(1)
          .max(Math.round(maxTimeout / 1000))
          .optional(),
        // Widening the sandbox is an approval the person gives, never automatic.
        sandbox: z
          .enum(['workspace', 'network', 'none'])
          .default('workspace')
          .describe(
            'workspace: writes only in the workspace, no network. network: the same with network. none: no sandbox. Ask for more only after the sandbox blocked a command.',
          ),
      })
      .strict(),
    risk: 'write_high',
    assess: (input, context) => {
      const place = commandPlace(
        context.workspacePath,
        sandbox && input.sandbox !== 'none' ? sandbox.kind : null,
        options.protectedFolders ?? [],
        user,
      );
      const lookup = options.repositoryPrograms;
      // Each folder's repository read once for this line, afresh for the next: the agent may have changed it between.
      const read = new Map<string, readonly RepositoryProgram[]>();
      const programs = lookup
        ? (folder: string): readonly RepositoryProgram[] => {
            const known = read.get(folder) ?? lookup(folder);
            read.set(folder, known);
            return known;
          }
        : undefined;
      const untrusted = context.workspacePath !== null && options.restricted?.(context.workspacePath) === true;
      const risk = assessor.assess(input.command, {
        ...place,
        ...(programs ? { repositoryPrograms: programs } : {}),
        ...(untrusted ? { untrusted } : {}),
      });
      const reason = risk.reasons.join('; ');
      // Without an OS sandbox every command already runs with the person's rights and the network, so asking for
      // network or no sandbox asks for nothing more: it is not an escalation, and every command is at least write_high.
      if (!sandbox) return { level: maxRisk([risk.level, 'write_high']), reason: `${reason}; no OS sandbox is in use` };
      if (input.sandbox === 'none') {
        const escalation = { kind: 'no_sandbox', reason: 'asks to run outside the sandbox, with your rights and the network' } as const;
        return { level: 'destructive', reason: `${reason}; asked to run outside the sandbox`, escalation };
      }
      if (input.sandbox === 'network') {
        const escalation = { kind: 'network', reason: 'asks for network access' } as const;
        return { level: maxRisk([risk.level, 'write_high']), reason: `${reason}; asked for network access`, escalation };
      }
      return { level: risk.level, reason };
    },
    trustPattern: (input) => commandTrustPattern(options.shell, input.command),
    // The command's own text: a grant for its network access covers this command, not its program.
    exactPattern: (input) => ({ kind: 'exact', arguments: input.command }),
    covers: (pattern, input) => input.sandbox !== 'none' && commandTrustCovers(options.shell, pattern, input.command),
    summarize: (input) => (input.sandbox === 'workspace' ? input.command : `${input.command} (sandbox: ${input.sandbox})`),
    execute: async (input, context) => {
      if (!context.workspacePath)
        throw new WorkbenchError('no_workspace', 'This session has no workspace folder: ask the person to choose one.');
      const timeoutMs = input.timeoutSeconds ? input.timeoutSeconds * 1000 : defaultTimeout;
      const sandboxed = sandbox !== null && input.sandbox !== 'none';
      const chosen = options.limits?.() ?? defaultCommandLimits;
      const limits = resourceLimitsFor(chosen, sandboxed && sandbox.kind === 'bubblewrap');
      const result = await runInPty({
        command: input.command,
        cwd: context.workspacePath,
        env: scrubbedEnvironment(process.env, platform),
        platform,
        ...(options.commandShell ? { shellPath: options.commandShell.path } : {}),
        timeoutMs,
        signal: context.signal,
        onOutput: (text) => context.emitOutput(text),
        niceness: options.niceness?.() ?? 10,
        limits,
        maxOutputBytes: chosen.outputMb * 1024 * 1024,
        ...(sandboxed
          ? {
              sandbox: (runFolder: string) =>
                sandboxWrapper(sandbox, {
                  workspace: context.workspacePath as string,
                  runFolder,
                  protectedFolders: options.protectedFolders ?? [],
                  mode: input.sandbox === 'network' ? 'network' : 'workspace',
                }),
            }
          : {}),
      });
      const text = plainText(result.output).replace(/\n+$/, '');
      const limited = limitNote({ exitCode: result.exitCode, output: text }, limits);
      const limitLine = limited ? `\n${limited}` : '';
      if (result.outputLimitReached) return { output: `${text}\n${outputLimitNote(chosen.outputMb)}`, isError: true };
      if (result.timedOut)
        return { output: `${text}\n[stopped after ${Math.round(timeoutMs / 1000)} s: the command timed out]${limitLine}`, isError: true };
      if (result.cancelled) return { output: `${text}\n[stopped by the user]`, isError: true };
      const blocked = sandboxed && result.exitCode !== 0 ? sandboxBlock(text) : null;
      const note = blocked
        ? `\n[${blocked}. If the task needs it, run it again with sandbox: "${blocked.startsWith('network') ? 'network' : 'none'}"; the person will be asked.]`
        : '';
      return {
        output: `${text}${text.length > 0 ? '\n' : ''}[exit code ${result.exitCode}]${note}${limitLine}`,
        isError: result.exitCode !== 0,
      };
    },
  });
}
