/*
 * The organization's update policy: where each system keeps its file, reading it (a malformed file is reported and
 * turns updates off), and the settings that apply once it is laid over the person's.
 */

import { readFileSync } from 'node:fs';
import { join, win32 } from 'node:path';
import { updatePolicySchema, type UpdateLocks, type UpdatePolicy, type UpdateSettings } from '../../shared/updates';

/** The largest policy file read: a policy is a few lines. */
const maxPolicyBytes = 64 * 1024;

/**
 * Where the policy file is on a system: a place only an administrator can write. Windows' `%ProgramData%` is read from
 * the environment given (`C:\ProgramData` when it is not set).
 */
export function systemPolicyPath(platform: NodeJS.Platform, env: Readonly<Record<string, string | undefined>>): string {
  switch (platform) {
    case 'darwin':
      return '/Library/Application Support/Agent Workbench/policy.json';
    case 'win32':
      return win32.join(env['ProgramData'] ?? env['PROGRAMDATA'] ?? 'C:\\ProgramData', 'Agent Workbench', 'policy.json');
    default:
      return join('/etc', 'agent-workbench', 'policy.json');
  }
}

/** The policy as read: none (no file), the file's, or what is wrong with it. */
export interface PolicyReading {
  readonly path: string;
  readonly policy: UpdatePolicy | null;
  /** Why the file could not be used; updates are then off until it is fixed. */
  readonly problem: string | null;
}

/** Reads the policy file; a missing file is no policy, anything else that cannot be used is a problem, never ignored. */
export function readUpdatePolicy(path: string, read: (path: string) => Buffer = (file) => readFileSync(file)): PolicyReading {
  let bytes: Buffer;
  try {
    bytes = read(path);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { path, policy: null, problem: null };
    return { path, policy: null, problem: `The update policy ${path} could not be read (${String(code ?? error)}): updates are off.` };
  }
  if (bytes.length > maxPolicyBytes) return { path, policy: null, problem: `The update policy ${path} is too large: updates are off.` };
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    return { path, policy: null, problem: `The update policy ${path} is not JSON (${(error as Error).message}): updates are off.` };
  }
  const parsed = updatePolicySchema.safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    const where = first && first.path.length > 0 ? first.path.join('.') : 'the file';
    return {
      path,
      policy: null,
      problem: `The update policy ${path} is not valid (${where}: ${first?.message ?? 'invalid'}): updates are off.`,
    };
  }
  return { path, policy: parsed.data, problem: null };
}

/**
 * The settings that apply, and which of them the policy decides. A policy that could not be read turns updates off
 * (the safe reading); one that sets the feed puts it in place of the person's, locked unless it says otherwise.
 */
export function applyPolicy(person: UpdateSettings, reading: PolicyReading): { settings: UpdateSettings; locked: UpdateLocks } {
  if (reading.problem !== null) return { settings: { ...person, enabled: false }, locked: { enabled: true, feedUrl: false } };
  const policy = reading.policy?.updates;
  if (!policy) return { settings: person, locked: { enabled: false, feedUrl: false } };
  const feedLocked = policy.feedUrl !== undefined && policy.feedUrlLocked !== false;
  const feedUrl = policy.feedUrl === undefined ? person.feedUrl : feedLocked ? policy.feedUrl : (person.feedUrl ?? policy.feedUrl);
  return {
    settings: { ...person, enabled: policy.enabled ?? person.enabled, feedUrl },
    locked: { enabled: policy.enabled !== undefined, feedUrl: feedLocked },
  };
}
