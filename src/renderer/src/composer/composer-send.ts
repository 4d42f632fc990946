/*
 * Sending from the message box: what was typed is read again as it is sent; a `/` command runs here, `/help` opens the
 * help, and a message goes to the model with its files.
 */

import { useState, type RefObject } from 'react';
import type { AttachmentRequest } from '../../../shared/attachments';
import type { DisposableStore } from '../../../shared/lifecycle';
import { errorMessage } from '../client';
import type { AppStore } from '../store';
import { attachmentsFor, type AttachmentDrops } from './attachments';
import { goesToModel, promptOf, runComposerCommand } from './composer-commands';
import { typesCommand, type CustomCommands } from './custom-commands';
import { readComposerText } from './slash-commands';

/**
 * Sends a message. Without attachments a failure is the app's notice; with them, a refused file is said beside the
 * message box, where it was written (`problem`), and nothing was sent.
 */
async function sendMessage(
  store: AppStore,
  sessionId: string,
  text: string,
  attachments: readonly AttachmentRequest[],
): Promise<{ sent: boolean; problem: string | null }> {
  if (attachments.length === 0)
    return { sent: (await store.attempt(() => store.call('run:send', { sessionId, text }))) !== undefined, problem: null };
  try {
    await store.call('run:send', { sessionId, text, attachments: [...attachments] });
    return { sent: true, problem: null };
  } catch (failure) {
    return { sent: false, problem: errorMessage(failure) };
  }
}

/** What sending acts on: the box's text and files, the commands known, and where what it finds is said. */
export interface ComposerSendTargets {
  readonly store: AppStore;
  readonly sessionId: string;
  readonly text: string;
  readonly setText: (text: string) => void;
  /** Why a message cannot go to the model now, or null: a command that runs here is not held back by it. */
  readonly blocked: string | null;
  readonly custom: CustomCommands;
  readonly attached: AttachmentDrops;
  /** The box's lifetime: what a command run here leaves going (an export's download) is let go with it. */
  readonly lifetime: RefObject<DisposableStore>;
  readonly focus: () => void;
  /** Why what was typed was refused, said below the box; null: nothing is wrong. */
  readonly setProblem: (problem: string | null) => void;
  /** Why the files could not go with the message, said beside them. */
  readonly setAttachProblem: (problem: string) => void;
}

/** The box's send, and the help dialog `/help` opens. */
export interface ComposerSend {
  readonly send: () => Promise<void>;
  readonly helpOpen: boolean;
  readonly closeHelp: () => void;
}

/**
 * Sending what the box holds: an empty box with files asks for a message to go with them; the person's commands are
 * read again first, so a command file changed since the list was shown is sent as it is now; `/help` opens the help; a
 * command that runs here empties the box once done; a message is not sent while the model cannot take it (`blocked`),
 * and one with files goes only if each of them can be attached.
 */
export function useComposerSend(targets: ComposerSendTargets): ComposerSend {
  const { store, sessionId, text, setText, blocked, custom, attached, focus, setProblem, setAttachProblem } = targets;
  const [helpOpen, setHelpOpen] = useState(false);

  const send = async (): Promise<void> => {
    if (text.trim() === '') {
      if (attached.drops.length > 0) setAttachProblem('Write a message to go with the files.');
      return;
    }
    // Read again as the person sends: a command file changed since the list was shown is sent as it is now.
    const list = typesCommand(text) ? await custom.refresh() : custom.list;
    const read = readComposerText(text, list.commands);
    if (read.kind === 'refused') return setProblem(read.reason);
    if (read.kind === 'help') {
      setText('');
      setProblem(null);
      setHelpOpen(true);
      return;
    }
    if (!goesToModel(read)) {
      const outcome = await runComposerCommand(store, sessionId, read, targets.lifetime.current);
      if (outcome.done) setText('');
      setProblem(outcome.done ? null : outcome.reason);
      return focus();
    }
    const prompt = promptOf(read, list);
    if ('problem' in prompt) return setProblem(prompt.problem);
    const message = prompt.message;
    if (blocked !== null) return;
    const going = attachmentsFor(message, attached.drops);
    if ('problem' in going) return setAttachProblem(going.problem);
    const outcome = await sendMessage(store, sessionId, message, going.attachments);
    if (outcome.problem !== null) setAttachProblem(outcome.problem);
    if (outcome.sent) {
      setText('');
      attached.clear();
      store.notify(null);
    }
    focus();
  };

  return { send, helpOpen, closeHelp: () => setHelpOpen(false) };
}
