import { useEffect, useRef, useState, type DragEvent } from 'react';
import { busyStatuses } from '../../../shared/domain';
import { errorMessage } from '../client';
import { runComposerCommand } from './composer-commands';
import { animationFrame, scheduleIn, useDisposables, useLifetime } from '../disposables';
import { readDroppedFile, workspacePathDragType } from './dropped-files';
import { useFileCompletion } from './file-completion';
import { completeReference, insertReference, readReferences, referenceAt } from './file-references';
import { sendBlock } from '../models/model-readiness';
import { commandsFor, readComposerText } from './slash-commands';
import { useAppState, type AppStore } from '../store';
import { PendingAttachments, type PendingDrop } from './PendingAttachments';

export function Composer({ store, sessionId }: { store: AppStore; sessionId: string }) {
  const [text, setText] = useState('');
  const [caret, setCaret] = useState(0);
  const status = useAppState(store, (state) => state.views[sessionId]?.status ?? 'idle');
  const queued = useAppState(store, (state) => state.views[sessionId]?.queued ?? null);
  const busy = busyStatuses.has(status);
  // A queued message runs on the model the turn already has; a new one needs a model that is there.
  const blocked = useAppState(store, (state) => (busy ? null : sendBlock(state, sessionId)));
  const input = useRef<HTMLTextAreaElement>(null);
  const lifetime = useLifetime();
  const [problem, setProblem] = useState<string | null>(null);
  const [attachProblem, setAttachProblem] = useState<string | null>(null);
  const [highlighted, setHighlighted] = useState(0);
  const [dismissedAt, setDismissedAt] = useState<number | null>(null);
  const [drops, setDrops] = useState<readonly PendingDrop[]>([]);
  const [dragOver, setDragOver] = useState(false);
  const nextDrop = useRef(0);
  const commands = commandsFor(text);
  const files = useFileCompletion(store, sessionId, text, caret, dismissedAt);
  const menu = commands.length > 0 ? 'commands' : files.typed && files.entries.length > 0 ? 'files' : null;
  const menuLength = menu === 'commands' ? commands.length : menu === 'files' ? files.entries.length : 0;
  // The reference being typed is not a chip yet: it may still become another path.
  const typing = text.startsWith('/') ? null : referenceAt(text, caret);
  const references = readReferences(typing ? `${text.slice(0, typing.start)}${text.slice(typing.end)}` : text).references;
  const draft = useAppState(store, (state) => state.drafts[sessionId] ?? null);
  const mentions = useAppState(store, (state) => state.mentions[sessionId] ?? null);

  useEffect(() => {
    if (draft === null) return;
    setText(draft);
    store.setDraft(sessionId, null);
    input.current?.focus();
  }, [draft, store, sessionId]);

  // "Attach to message" in a preview: the file goes in as `@path` at the end of the text.
  useEffect(() => {
    if (mentions === null) return;
    setText((current) => mentions.reduce((joined, path) => insertReference(joined, joined.length, path).text, current));
    store.mention(sessionId, null);
    setAttachProblem(null);
    input.current?.focus();
  }, [mentions, store, sessionId]);

  useDisposables(
    (disposables) => {
      disposables.listen(window, 'keydown', (event: KeyboardEvent) => {
        if (event.key === 'Escape' && busy) void store.attempt(() => store.call('run:cancel', { sessionId }));
      });
    },
    [store, sessionId, busy],
  );

  const edit = (next: string, at: number): void => {
    setText(next);
    setCaret(at);
    setProblem(null);
    setAttachProblem(null);
    setHighlighted(0);
  };

  const placeCaret = (at: number): void => {
    setCaret(at);
    // After React has put the new text in the box.
    scheduleIn(lifetime.current, animationFrame, () => input.current?.setSelectionRange(at, at));
  };

  const complete = (index: number): void => {
    if (menu === 'commands') {
      const command = commands[index];
      if (command) setText(`/${command.name} `);
    } else if (menu === 'files' && files.typed) {
      const entry = files.entries[index];
      if (entry) {
        const completed = completeReference(text, files.typed, entry.path, entry.directory);
        edit(completed.text, completed.caret);
        placeCaret(completed.caret);
      }
    }
    setHighlighted(0);
    input.current?.focus();
  };

  const send = async (): Promise<void> => {
    if (text.trim() === '') {
      if (drops.length > 0) setAttachProblem('Write a message to go with the files.');
      return;
    }
    const read = readComposerText(text);
    if (read.kind === 'refused') {
      setProblem(read.reason);
      return;
    }
    if (read.kind !== 'message') {
      const outcome = await runComposerCommand(store, sessionId, read, lifetime.current);
      if (outcome.done) setText('');
      setProblem(outcome.done ? null : outcome.reason);
      input.current?.focus();
      return;
    }
    const message = read.text;
    if (blocked !== null) return;
    const pointed = readReferences(message);
    if (pointed.problem !== null) {
      setAttachProblem(pointed.problem);
      return;
    }
    const attachments = [
      ...pointed.references.map((reference) => ({
        kind: 'workspace' as const,
        path: reference.path,
        ...(reference.range ? { range: reference.range } : {}),
      })),
      ...drops.map((drop) => drop.request),
    ];
    let sent = false;
    if (attachments.length === 0) sent = (await store.attempt(() => store.call('run:send', { sessionId, text: message }))) !== undefined;
    else {
      // A refused file is said beside the message box, where it was written; nothing was sent.
      try {
        await store.call('run:send', { sessionId, text: message, attachments });
        sent = true;
      } catch (failure) {
        setAttachProblem(errorMessage(failure));
      }
    }
    if (sent) {
      setText('');
      setDrops([]);
      store.notify(null);
    }
    input.current?.focus();
  };

  const accepts = (event: DragEvent): boolean =>
    event.dataTransfer.types.includes(workspacePathDragType) || event.dataTransfer.types.includes('Files');

  const onDrop = async (event: DragEvent): Promise<void> => {
    // Dropped on the message box, a file is attached: the window's folder drop zone must not take it for a workspace.
    event.preventDefault();
    event.stopPropagation();
    setDragOver(false);
    const path = event.dataTransfer.getData(workspacePathDragType);
    if (path) {
      const inserted = insertReference(text, caret, path);
      edit(inserted.text, inserted.caret);
      input.current?.focus();
      return;
    }
    for (const file of Array.from(event.dataTransfer.files)) {
      let read: Awaited<ReturnType<typeof readDroppedFile>>;
      try {
        read = await readDroppedFile(file);
      } catch {
        read = { ok: false, problem: `${file.name} could not be read; a folder cannot be attached, only files.` };
      }
      if (!read.ok) {
        setAttachProblem(read.problem);
        continue;
      }
      const { request, size } = read;
      setDrops((current) => [...current, { id: (nextDrop.current += 1), name: file.name, size, request }]);
    }
    input.current?.focus();
  };

  return (
    <>
      {queued !== null && (
        <div className="queued row" role="status" aria-label="Queued message">
          <span className="muted small">Queued, runs when this turn ends:</span>
          <span className="queued-text">{queued}</span>
          <button type="button" onClick={() => void store.attempt(() => store.call('run:clearQueue', { sessionId }))}>
            Clear
          </button>
        </div>
      )}
      {menu !== null && (
        <ul className="slash-menu" role="listbox" id={`composer-menu-${sessionId}`} aria-label={menu === 'commands' ? 'Commands' : 'Files'}>
          {(menu === 'commands'
            ? commands.map((command) => ({
                key: command.name,
                shown: (
                  <>
                    <code>{command.usage}</code> <span className="muted small">{command.summary}</span>
                  </>
                ),
              }))
            : files.entries.map((entry) => ({ key: entry.path, shown: <code>{entry.directory ? `${entry.path}/` : entry.path}</code> }))
          ).map(({ key, shown }, index) => (
            <li
              key={key}
              id={`composer-option-${sessionId}-${index}`}
              role="option"
              aria-selected={index === highlighted}
              onMouseDown={(event) => {
                // Keeps the focus in the message box.
                event.preventDefault();
                complete(index);
              }}
            >
              {shown}
            </li>
          ))}
        </ul>
      )}
      <PendingAttachments
        references={references}
        drops={drops}
        onRemove={(id) => setDrops((current) => current.filter((drop) => drop.id !== id))}
      />
      {problem !== null && (
        <p className="error small composer-problem" role="alert" aria-label="Command problem">
          {problem}
        </p>
      )}
      {attachProblem !== null && (
        <p className="error small composer-problem" role="alert" aria-label="Attachment problem">
          {attachProblem}
        </p>
      )}
      {blocked !== null && (
        <p className="send-blocked small" id={`send-blocked-${sessionId}`} role="status" aria-label="Why Send is off">
          {blocked}
        </p>
      )}
      <form
        className={dragOver ? 'composer drop-over' : 'composer'}
        onSubmit={(event) => {
          event.preventDefault();
          void send();
        }}
        onDragOver={(event) => {
          if (!accepts(event)) return;
          event.preventDefault();
          event.stopPropagation();
          event.dataTransfer.dropEffect = 'copy';
          setDragOver(true);
        }}
        onDragLeave={() => setDragOver(false)}
        onDrop={(event) => void onDrop(event)}
      >
        <textarea
          ref={input}
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
          onKeyDown={(event) => {
            if (menu !== null && (event.key === 'ArrowDown' || event.key === 'ArrowUp')) {
              event.preventDefault();
              const step = event.key === 'ArrowDown' ? 1 : menuLength - 1;
              setHighlighted((current) => (current + step) % menuLength);
              return;
            }
            if (menu === 'files' && event.key === 'Escape') {
              // Closes the list only; the turn goes on (Escape elsewhere stops it).
              event.preventDefault();
              event.stopPropagation();
              setDismissedAt(files.typed?.start ?? null);
              return;
            }
            // Enter runs a whole command; on a name still being typed it completes it, as Tab does. A path is always completed.
            const partial = menu === 'files' || readComposerText(text).kind === 'refused';
            if (menu !== null && (event.key === 'Tab' || (event.key === 'Enter' && !event.shiftKey && partial))) {
              event.preventDefault();
              complete(highlighted);
              return;
            }
            if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
              event.preventDefault();
              void send();
            }
          }}
        />
        <button
          type="submit"
          className="primary"
          disabled={text.trim() === '' || (blocked !== null && readComposerText(text).kind === 'message')}
          aria-label={busy ? 'Queue' : 'Send'}
          title={blocked ?? undefined}
          {...(blocked === null ? {} : { 'aria-describedby': `send-blocked-${sessionId}` })}
        >
          {busy ? 'Queue' : 'Send'}
        </button>
      </form>
    </>
  );
}
