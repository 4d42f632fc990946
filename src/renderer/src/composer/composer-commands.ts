/*
 * Runs the message box's `/` commands (compact, clear, export, model, autonomy); a refusal comes back as its reason in
 * words.
 */

import type { DisposableStore } from '../../../shared/lifecycle';
import { errorMessage } from '../client';
import { download } from '../download';
import { effectiveModel, listsModel } from '../models/model-readiness';
import type { ComposerInput } from './slash-commands';
import type { AppStore } from '../store';

/** What running a command came to: done, or refused with the reason in words (nothing changed). */
export type CommandOutcome = { readonly done: true } | { readonly done: false; readonly reason: string };

const done: CommandOutcome = { done: true };
const refused = (reason: string): CommandOutcome => ({ done: false, reason });

/** Runs a composer command for a session; a refusal from main comes back as the reason, not as a thrown error. */
export async function runComposerCommand(
  store: AppStore,
  sessionId: string,
  command: Exclude<ComposerInput, { kind: 'message' } | { kind: 'refused' }>,
  owner: DisposableStore,
): Promise<CommandOutcome> {
  try {
    switch (command.kind) {
      case 'compact':
        await store.call('session:compact', { sessionId, ...(command.instructions ? { instructions: command.instructions } : {}) });
        return done;
      case 'clear': {
        const session = store.getState().sessions.find((candidate) => candidate.id === sessionId);
        await store.createSession(session?.workspacePath ?? null);
        const fresh = store.getState().selectedId;
        if (!fresh || fresh === sessionId) return refused('No new session was started: see the message above.');
        // Its own pick goes with it; a session on the default model stays on the default.
        if (session?.model) await store.setSessionModel(fresh, session.model);
        return done;
      }
      case 'export': {
        const { fileName, document: text } = await store.call('session:export', { sessionId });
        download(owner, fileName, text);
        return done;
      }
      case 'model': {
        const current = effectiveModel(store.getState(), sessionId);
        if (!current) return refused('Pick an endpoint first; /model switches between the models of one endpoint.');
        const endpoint = store.getState().endpoints[current.providerId];
        // Anthropic takes aliases it does not list, as Send does.
        const anthropic = store.getState().providers.find((provider) => provider.id === current.providerId)?.kind === 'anthropic';
        if (!anthropic && endpoint?.state === 'ok' && endpoint.models.length > 0 && !listsModel(endpoint.models, command.model)) {
          const names = endpoint.models.slice(0, 8).map((model) => model.id);
          return refused(
            `This endpoint has no model “${command.model}”. Its models: ${names.join(', ')}${endpoint.models.length > 8 ? '…' : ''}.`,
          );
        }
        const updated = await store.call('session:setModel', {
          sessionId,
          model: { providerId: current.providerId, model: command.model },
        });
        store.upsertSession(updated);
        return done;
      }
      case 'autonomy': {
        const updated = await store.call('session:setAutonomy', { sessionId, autonomy: command.autonomy });
        store.upsertSession(updated);
        return done;
      }
    }
  } catch (error) {
    return refused(errorMessage(error));
  }
}
