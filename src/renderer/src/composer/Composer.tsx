/*
 * The message box: a message to send or to queue while a turn runs, `/` commands (built-in and the person's own),
 * `@` references to workspace files, and files dropped, chosen with the attach button or pasted.
 */

import { useRef, useState } from 'react';
import { busyStatuses } from '../../../shared/domain';
import { animationFrame, scheduleIn, useLifetime } from '../disposables';
import { sendBlock } from '../models/model-readiness';
import { useAppState, type AppStore } from '../store';
import { AttachButton } from './AttachButton';
import { useAttachmentDrops } from './attachments';
import { useComposerKeys } from './composer-keys';
import { goesToModel } from './composer-commands';
import { useComposerSend } from './composer-send';
import { ComposerMenu, useComposerMenu } from './ComposerMenu';
import { ComposerProblems, QueuedMessage } from './ComposerNotes';
import { useCustomCommands } from './custom-commands';
import { completeReference, readReferences, referenceAt } from './file-references';
import { HelpDialog } from './HelpDialog';
import { useIncomingText } from './incoming-text';
import { PendingAttachments } from './PendingAttachments';
import { readComposerText } from './slash-commands';

/**
 * The message box: a message to send (or to queue while a turn runs), a `/` command (built-in, or one of the person's
 * command files), `@` references to workspace files with a list that completes them, and files dropped from the
 * desktop or the file tree, chosen with the attach button, or pasted.
 */
export function Composer({ store, sessionId }: { store: AppStore; sessionId: string }) {
  const [text, setText] = useState('');
  const [caret, setCaret] = useState(0);
  const status = useAppState(store, (state) => state.views[sessionId]?.status ?? 'idle');
  const busy = busyStatuses.has(status);
  // A queued message runs on the model the turn already has; a new one needs a model that is there.
  const blocked = useAppState(store, (state) => (busy ? null : sendBlock(state, sessionId)));
  const input = useRef<HTMLTextAreaElement>(null);
  const focus = (): void => input.current?.focus();
  const lifetime = useLifetime();
  const [problem, setProblem] = useState<string | null>(null);
  const [attachProblem, setAttachProblem] = useState<string | null>(null);
  const dataDir = useAppState(store, (state) => state.info?.dataDir ?? null);
  const custom = useCustomCommands(store, sessionId, text);
  const offered = useComposerMenu(store, sessionId, text, caret, custom.list.commands);
  const { menu, commands, files, highlighted } = offered;
  // The reference being typed is not a chip yet: it may still become another path.
  const typing = text.startsWith('/') ? null : referenceAt(text, caret);
  const references = readReferences(typing ? `${text.slice(0, typing.start)}${text.slice(typing.end)}` : text).references;
  useIncomingText(store, sessionId, setText, () => setAttachProblem(null), focus);

  const edit = (next: string, at: number): void => {
    setText(next);
    setCaret(at);
    setProblem(null);
    setAttachProblem(null);
    offered.setHighlighted(0);
  };
  const attached = useAttachmentDrops({ text, caret, edit, focus, onProblem: setAttachProblem });

  const complete = (index: number): void => {
    if (menu === 'commands') {
      const command = commands[index];
      if (command) setText(`/${command.name} `);
    } else if (menu === 'files' && files.typed) {
      const entry = files.entries[index];
      if (entry) {
        const completed = completeReference(text, files.typed, entry.path, entry.directory);
        edit(completed.text, completed.caret);
        setCaret(completed.caret);
        // After React has put the new text in the box.
        scheduleIn(lifetime.current, animationFrame, () => input.current?.setSelectionRange(completed.caret, completed.caret));
      }
    }
    offered.setHighlighted(0);
    focus();
  };

  const { send, helpOpen, closeHelp } = useComposerSend({
    store,
    sessionId,
    text,
    setText,
    blocked,
    custom,
    attached,
    lifetime,
    focus,
    setProblem,
    setAttachProblem,
  });

  const onKeyDown = useComposerKeys({
    store,
    sessionId,
    busy,
    text,
    customCommands: custom.list.commands,
    menu,
    menuLength: offered.length,
    highlighted,
    setHighlighted: offered.setHighlighted,
    dismissFiles: offered.dismissFiles,
    complete,
    send: () => void send(),
  });

  return (
    <>
      <QueuedMessage store={store} sessionId={sessionId} />
      {menu !== null && (
        <ComposerMenu
          sessionId={sessionId}
          menu={menu}
          commands={commands}
          entries={files.entries}
          highlighted={highlighted}
          onPick={complete}
        />
      )}
      <PendingAttachments references={references} drops={attached.drops} onRemove={attached.remove} />
      <ComposerProblems sessionId={sessionId} problem={problem} attachProblem={attachProblem} blocked={blocked} />
      <form
        className={attached.dragOver ? 'composer drop-over' : 'composer'}
        data-region="composer"
        onSubmit={(event) => {
          event.preventDefault();
          void send();
        }}
        {...attached.dropTarget}
      >
        <AttachButton onFiles={attached.addFiles} />
        <textarea
          ref={input}
          data-region-focus=""
          aria-label="Message"
          // The menu of commands or files belongs to the box: a screen reader follows the highlighted one while typing goes on.
          aria-autocomplete="list"
          {...(menu === null
            ? {}
            : { 'aria-controls': `composer-menu-${sessionId}`, 'aria-activedescendant': `composer-option-${sessionId}-${highlighted}` })}
          placeholder={
            busy
              ? 'Queue a message for when this turn ends… (Enter)'
              : 'Ask the agent… (Enter to send, Shift+Enter for a new line, / for commands, @ for files: @path#L10-20)'
          }
          value={text}
          rows={3}
          onChange={(event) => edit(event.target.value, event.target.selectionStart)}
          onSelect={(event) => setCaret(event.currentTarget.selectionStart)}
          onKeyDown={onKeyDown}
          onPaste={attached.onPaste}
        />
        <button
          type="submit"
          className="primary"
          disabled={text.trim() === '' || (blocked !== null && goesToModel(readComposerText(text, custom.list.commands)))}
          aria-label={busy ? 'Queue' : 'Send'}
          title={blocked ?? undefined}
          {...(blocked === null ? {} : { 'aria-describedby': `send-blocked-${sessionId}` })}
        >
          {busy ? 'Queue' : 'Send'}
        </button>
      </form>
      {helpOpen && <HelpDialog list={custom.list} dataDir={dataDir} onClose={closeHelp} />}
    </>
  );
}
