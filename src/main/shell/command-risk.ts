/*
 * How risky a shell command line is, judged from bash's grammar and from the paths it writes.
 */

import { homedir, userInfo } from 'node:os';
import { BoundedMap } from '../../shared/bounded-map';
import type { BashParser } from './bash-parser';
import { TargetJudge, type CommandPlace } from './command-targets';
import { walkScript, type CommandRisk } from './script-walk';

export type { CommandPlace } from './command-targets';
export type { CommandRisk } from './script-walk';

/** Who runs commands: the home folder and the user name `~` and `$HOME` stand for. */
export interface CommandUser {
  readonly home: string;
  readonly user: string;
}

export function currentUser(): CommandUser {
  return { home: homedir(), user: userInfo().username };
}

/** The place of a command when only the workspace and the sandbox are known. */
export function commandPlace(
  workspace: string | null,
  sandbox: CommandPlace['sandbox'],
  protectedFolders: readonly string[] = [],
  user: CommandUser = currentUser(),
): CommandPlace {
  return { workspace, sandbox, protectedFolders, home: user.home, user: user.user };
}

/**
 * The risk of a command line, from bash's own grammar and from where it writes: the highest of its commands,
 * redirections, pipes into shells, background jobs and substitutions. A path written outside the workspace,
 * a program name computed when it runs, system-wide process control, power and mounts are destructive; so is a
 * line that cannot be parsed. It is `read_only` only when nothing in it can write.
 */
export function assessCommand(parser: BashParser, command: string, place: CommandPlace): CommandRisk {
  return walkScript(parser, command, new TargetJudge(place), place, { home: place.home, user: place.user }, 0);
}

/**
 * Assesses commands for a tool that judges many: the judge of each place (its workspace's real path looked up once)
 * is kept, so a command costs its parse and the paths it writes, not the workspace's lookup again.
 */
export class CommandAssessor {
  /** A handful of workspaces at a time: the judge set longest ago is forgotten first. */
  private readonly judges = new BoundedMap<string, TargetJudge>({ max: 16 });

  constructor(private readonly parser: BashParser) {}

  assess(command: string, place: CommandPlace): CommandRisk {
    const key = JSON.stringify([place.workspace, place.sandbox, place.protectedFolders ?? [], place.home]);
    let judge = this.judges.get(key);
    if (!judge) {
      judge = new TargetJudge(place);
      this.judges.set(key, judge);
    }
    return walkScript(this.parser, command, judge, place, { home: place.home, user: place.user }, 0);
  }
}
