/*
 * The IPC handlers of folder trust: what a session's folder would bring, the person's answer, the decisions in Settings.
 */

import { NotFoundError, WorkbenchError } from '../../shared/errors';
import type { FolderSurvey, FolderTrustList, FolderTrustState } from '../../shared/folder-trust';
import { screened } from '../agent/context/system-prompt';
import { InstructionFiles, instructionDigest, instructionFilePath } from '../workspace/instruction-files';
import type { SessionStore } from '../agent/ports/stores';
import type { Repositories } from '../git/repositories';
import type { FolderTrustStore } from '../workspace/folder-trust-store';
import type { FolderPicker } from './workspace-handlers';
import { surveyFolder } from './folder-survey';
import type { Handlers } from './router';

type FolderTrustChannel =
  | 'folder-trust:get'
  | 'folder-trust:decide'
  | 'folder-trust:release'
  | 'folder-trust:list'
  | 'folder-trust:set'
  | 'folder-trust:forget'
  | 'folder-trust:pick';

export interface FolderTrustHandlerDependencies {
  readonly store: SessionStore;
  /** The decisions; null where every folder is trusted (then nothing is asked and nothing kept). */
  readonly folderTrust: FolderTrustStore | null;
  readonly repositories: Repositories;
  readonly folderPicker: FolderPicker;
  readonly dataDir: string;
  /** Tells every window the decisions changed. */
  readonly onFolderTrustChanged: () => void;
}

const everyFolderTrusted = (path: string): FolderTrustState => ({ path, trusted: true, decided: true, by: null, parent: null });

export function folderTrustHandlers(deps: FolderTrustHandlerDependencies): Pick<Handlers, FolderTrustChannel> {
  const { folderTrust } = deps;
  const folderOf = (sessionId: string): string | null => {
    const session = deps.store.get(sessionId);
    if (!session) throw new NotFoundError('Session', sessionId);
    return session.workspacePath;
  };
  const look = async (sessionId: string): Promise<{ state: FolderTrustState | null; survey: FolderSurvey | null }> => {
    const path = folderOf(sessionId);
    if (path === null) return { state: null, survey: null };
    const available = await deps.repositories.availability();
    const survey = await surveyFolder(path, {
      dataDir: deps.dataDir,
      ...(available.available ? { git: { program: deps.repositories.git.program, env: deps.repositories.git.baseEnv } } : {}),
      ...(folderTrust ? { trust: folderTrust } : {}),
    });
    return { state: folderTrust?.stateOf(path) ?? everyFolderTrusted(path), survey };
  };
  const list = (): FolderTrustList => folderTrust?.list() ?? { folders: [], problem: null, file: '' };
  const changed = <T>(result: T): T => {
    deps.onFolderTrustChanged();
    return result;
  };
  return {
    'folder-trust:get': (input) => look(input.sessionId),
    'folder-trust:release': async (input) => {
      const path = folderOf(input.sessionId);
      if (path === null || !folderTrust) throw new NotFoundError('Instruction file', input.path);
      const file = (await new InstructionFiles().load(path)).files.find((candidate) => candidate.path === input.path);
      // Only a file the folder has, and one that is held back: the window names no other file.
      if (!file || screened(file.text).length === 0) throw new NotFoundError('Held-back instruction file', input.path);
      // As the person read it: a file that changed since is shown again first, not let through unseen.
      if (instructionDigest(file.text) !== input.sha256)
        throw new WorkbenchError('invalid_state', `${input.path} changed since it was shown: read it again before you let it through.`);
      folderTrust.release(instructionFilePath(path, file.path), instructionDigest(file.text));
      deps.onFolderTrustChanged();
      return look(input.sessionId);
    },
    'folder-trust:decide': (input) => {
      const path = folderOf(input.sessionId);
      if (path === null) throw new NotFoundError('Workspace folder of session', input.sessionId);
      if (!folderTrust) return everyFolderTrusted(path);
      return changed(folderTrust.decide(path, input.decision));
    },
    'folder-trust:list': () => list(),
    'folder-trust:set': (input) => {
      // Only a folder already decided: the window names no new path for main to trust.
      // Exact text: the window names an entry of the list as the list gave it.
      const known = list().folders.some((entry) => entry.path === input.path && entry.scope === input.scope);
      if (!folderTrust || !known) throw new NotFoundError('Folder trust decision', input.path);
      folderTrust.put(input);
      return changed(list());
    },
    'folder-trust:forget': (input) => {
      if (!folderTrust) throw new NotFoundError('Folder trust decision', input.path);
      folderTrust.forget(input.path, input.scope);
      return changed(list());
    },
    'folder-trust:pick': async () => {
      if (!folderTrust) return list();
      const picked = await deps.folderPicker.pickFolder();
      if (picked === null) return list();
      folderTrust.put({ path: picked, scope: 'tree', trusted: true });
      return changed(list());
    },
  };
}
