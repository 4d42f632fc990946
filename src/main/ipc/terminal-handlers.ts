/*
 * The IPC handlers of the person's own terminals: start one in a session's folder, type into it, size it, end it.
 */

import { NotFoundError, WorkbenchError } from '../../shared/errors';
import type { SessionStore } from '../agent/ports/stores';
import type { PersonTerminals } from '../tools/person-terminals';
import type { Handlers } from './router';

type TerminalChannel = 'terminal:open' | 'terminal:input' | 'terminal:resize' | 'terminal:close';

/** The handlers of the person's terminals. */
export function terminalHandlers(deps: {
  readonly store: SessionStore;
  readonly terminals: PersonTerminals;
}): Pick<Handlers, TerminalChannel> {
  const { store, terminals } = deps;
  return {
    'terminal:open': async (input) => {
      const session = store.get(input.sessionId);
      if (!session) throw new NotFoundError('Session', input.sessionId);
      if (!session.workspacePath)
        throw new WorkbenchError('invalid_state', 'This session has no folder: choose one to open a terminal in it.');
      return { terminalId: terminals.start(session.id, session.workspacePath, input.cols, input.rows) };
    },
    'terminal:input': async (input) => {
      terminals.write(input.terminalId, input.data);
      return {};
    },
    'terminal:resize': async (input) => {
      terminals.resize(input.terminalId, input.cols, input.rows);
      return {};
    },
    'terminal:close': async (input) => {
      terminals.end(input.terminalId);
      return {};
    },
  };
}
