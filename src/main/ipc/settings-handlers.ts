/*
 * The IPC handlers of the settings: reading them, and saving a change once every endpoint or profile it names is
 * found.
 */

import { NotFoundError, WorkbenchError } from '../../shared/errors';
import type { SessionStore } from '../agent/ports/stores';
import { suggestCheckCommands } from '../workspace/check-commands';
import { WorkspaceFiles } from '../workspace/workspace-files';
import type { SessionArchive } from '../agent/session/archive';
import type { ProfileStore } from '../agent/rules/profiles';
import type { SettingsStore } from '../agent/ports/settings';
import type { Handlers } from './router';

/** The handlers of the settings' channels (`settings-channels.ts`): every reference an update names is checked before it is saved. */
export function settingsHandlers(deps: {
  readonly settings: SettingsStore;
  readonly profiles: ProfileStore;
  readonly archive: SessionArchive;
  readonly store: SessionStore;
}): Pick<Handlers, 'settings:get' | 'settings:update' | 'diagnostics:allow' | 'check:suggest' | 'check:set'> {
  const { settings, profiles, archive, store } = deps;
  const workspaceOf = (sessionId: string): string => {
    const session = store.get(sessionId);
    if (!session) throw new NotFoundError('Session', sessionId);
    if (session.workspacePath === null) throw new WorkbenchError('no_workspace', 'This session has no workspace folder yet.');
    return session.workspacePath;
  };
  return {
    'settings:get': () => settings.get(),
    'check:suggest': async ({ sessionId }) => {
      const reader = new WorkspaceFiles(workspaceOf(sessionId)).reader();
      try {
        return await suggestCheckCommands(reader);
      } finally {
        reader.close();
      }
    },
    'check:set': ({ sessionId, command, afterTurn }) => {
      const workspacePath = workspaceOf(sessionId);
      const current = settings.get();
      const others = current.checkCommands.filter((item) => item.workspacePath !== workspacePath);
      return settings.set({ ...current, checkCommands: command === null ? others : [...others, { workspacePath, command, afterTurn }] });
    },
    'diagnostics:allow': ({ sessionId, language, allow }) => {
      const workspacePath = workspaceOf(sessionId);
      const current = settings.get();
      const others = current.diagnostics.allowed.filter((item) => item.workspacePath !== workspacePath || item.language !== language);
      return settings.set({
        ...current,
        diagnostics: { ...current.diagnostics, allowed: allow ? [...others, { workspacePath, language }] : others },
      });
    },
    'settings:update': (input) => {
      const current = settings.get();
      if (input.defaultModel && !current.providers.some((provider) => provider.id === input.defaultModel?.providerId)) {
        throw new NotFoundError('Provider', input.defaultModel.providerId);
      }
      if (input.defaultProfileId !== undefined && !profiles.get(input.defaultProfileId))
        throw new NotFoundError('Profile', input.defaultProfileId);
      const { defaultModel, budgets, diagnostics, ...rest } = input;
      const defined = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined));
      const saved = settings.set({
        ...current,
        ...defined,
        ...(defaultModel === undefined ? {} : { defaultModel }),
        // Budgets change one at a time: those left out stay as they are.
        ...(budgets === undefined ? {} : { budgets: { ...current.budgets, ...budgets } }),
        ...(diagnostics === undefined
          ? {}
          : {
              diagnostics: {
                ...current.diagnostics,
                ...Object.fromEntries(Object.entries(diagnostics).filter(([, value]) => value !== undefined)),
              },
            }),
      });
      // A shorter retention applies at once: what it makes due is purged now, not at the next hourly look.
      if (input.archiveRetentionDays !== undefined) archive.purgeDue();
      return saved;
    },
  };
}
