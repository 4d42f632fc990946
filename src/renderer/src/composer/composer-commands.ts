/*
 * Runs the message box's `/` commands (compact, clear, export, model, autonomy), and turns those that ask the agent
 * (`/init`, the person's own) into the message they send; a refusal comes back as its reason in words.
 */

import { expandCommandPrompt, type CustomCommandList } from '../../../shared/custom-commands';
import type { DisposableStore } from '../../../shared/lifecycle';
import { errorMessage } from '../client';
import { download } from '../download';
import { effectiveModel, listsModel } from '../models/model-readiness';
import { initPrompt } from './init-prompt';
import type { ComposerInput } from './slash-commands';
import type { AppStore } from '../store';

/** What running a command came to: done, or refused with the reason in words (nothing changed). */
export type CommandOutcome = { readonly done: true } | { readonly done: false; readonly reason: string };

const done: CommandOutcome = { done: true };
const refused = (reason: string): CommandOutcome => ({ done: false, reason });

/** What the composer's text asks that is sent to the model as a message: a message, `/init`, or a command of the person's. */
export type PromptInput = Extract<ComposerInput, { kind: 'message' } | { kind: 'init' } | { kind: 'custom' }>;
/** A command the composer runs itself, without the model. */
export type RunnableCommand = Exclude<ComposerInput, PromptInput | { kind: 'refused' } | { kind: 'help' }>;

/** Whether what was typed goes to the model (so it needs a model that is there), rather than running here. */
export function goesToModel(input: ComposerInput): input is PromptInput {
  return input.kind === 'message' || input.kind === 'init' || input.kind === 'custom';
}

/**
 * The message that what was typed sends: the text itself, `/init`'s request for an AGENTS.md, or a command's prompt
 * with what followed it put in. `/init` needs the session's folder (`list.instructionFiles` is null without one).
 */
export function promptOf(input: PromptInput, list: CustomCommandList): { message: string } | { problem: string } {
  switch (input.kind) {
    case 'message':
      return { message: input.text };
    case 'custom':
      return { message: expandCommandPrompt(input.command.prompt, input.arguments) };
    case 'init':
      return list.instructionFiles === null
        ? { problem: '/init looks at the session’s folder, and this session has none: choose a folder first.' }
        : { message: initPrompt(list.instructionFiles, input.instructions) };
  }
}

/** Runs a composer command for a session; a refusal from main comes back as the reason, not as a thrown error. */
export async function runComposerCommand(
  store: AppStore,
  sessionId: string,
  command: RunnableCommand,
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
