/*
 * The IPC handlers of archived sessions (list, restore, delete now) and of a session's audit view.
 */

import { NotFoundError } from '../../shared/errors';
import type { archiveChannels } from '../../shared/ipc/archive-channels';
import type { SessionArchive } from '../agent/session/archive';
import { auditOf } from '../agent/history/audit';
import type { SessionStore } from '../agent/ports/stores';
import type { TrustStore } from '../agent/ports/trust';
import type { Handlers } from './router';

export interface ArchiveHandlerDependencies {
  readonly archive: SessionArchive;
  readonly store: SessionStore;
  readonly trust: TrustStore;
}

/** The handlers of the archive and the audit view (`archiveChannels`). */
export function createArchiveHandlers(deps: ArchiveHandlerDependencies): Pick<Handlers, keyof typeof archiveChannels> {
  const { archive, store, trust } = deps;
  return {
    'archive:list': () => archive.list(),
    'archive:restore': (input) => archive.restore(input.sessionId),
    'archive:delete': (input) => {
      archive.deleteNow(input.sessionId);
      return { deleted: true as const };
    },
    'audit:list': (input) => {
      const session = store.get(input.sessionId);
      if (!session) throw new NotFoundError('Session', input.sessionId);
      // Every branch's rows, in the order they were written: a decision on a branch left behind was made all the same.
      const rows = auditOf(store.allRows(input.sessionId), { grant: (grantId) => trust.find(grantId) });
      return { session: { id: session.id, title: session.title, workspacePath: session.workspacePath }, rows };
    },
  };
}
