/*
 * The list below the message box while typing: the commands matching a `/` name, or the workspace files matching an
 * `@` path.
 */

import { useEffect, useRef, useState, type Dispatch, type ReactNode, type SetStateAction } from 'react';
import type { CustomCommand } from '../../../shared/custom-commands';
import type { AppStore } from '../store';
import type { ComposerMenuKind } from './composer-keys';
import { useFileCompletion, type FoundEntry } from './file-completion';
import type { TypedReference } from './file-references';
import { commandsFor, type MenuCommand } from './slash-commands';

/** The list offered for the text at the caret, and which of its options is highlighted. */
export interface ComposerMenuState {
  readonly menu: ComposerMenuKind;
  readonly length: number;
  readonly commands: readonly MenuCommand[];
  readonly files: { readonly typed: TypedReference | null; readonly entries: readonly FoundEntry[] };
  readonly highlighted: number;
  readonly setHighlighted: Dispatch<SetStateAction<number>>;
  /** Closes the list of files for the reference being typed; typing another one opens it again. */
  readonly dismissFiles: () => void;
}

/**
 * Which list the box offers: the commands (built-in, then the person's own `custom` ones) while a command's name is
 * typed, else the workspace's files matching the `@…` at the caret, else none.
 */
export function useComposerMenu(
  store: AppStore,
  sessionId: string,
  text: string,
  caret: number,
  custom: readonly CustomCommand[],
): ComposerMenuState {
  const [highlighted, setHighlighted] = useState(0);
  const [dismissedAt, setDismissedAt] = useState<number | null>(null);
  const commands = commandsFor(text, custom);
  const files = useFileCompletion(store, sessionId, text, caret, dismissedAt);
  const menu = commands.length > 0 ? 'commands' : files.typed && files.entries.length > 0 ? 'files' : null;
  return {
    menu,
    length: menu === 'commands' ? commands.length : menu === 'files' ? files.entries.length : 0,
    commands,
    files,
    highlighted,
    setHighlighted,
    dismissFiles: () => setDismissedAt(files.typed?.start ?? null),
  };
}

/**
 * The list below the message box while a command's name or an `@` path is typed. It belongs to the box (the box names
 * the highlighted option as its active descendant), so a click on an option must not take the focus from the box.
 */
export function ComposerMenu({
  sessionId,
  menu,
  commands,
  entries,
  highlighted,
  onPick,
}: {
  sessionId: string;
  menu: 'commands' | 'files';
  commands: readonly MenuCommand[];
  entries: readonly FoundEntry[];
  highlighted: number;
  onPick: (index: number) => void;
}) {
  const options: ReadonlyArray<{ key: string; shown: ReactNode }> =
    menu === 'commands'
      ? commands.map((command) => ({
          key: command.name,
          shown: (
            <>
              <code>{command.usage}</code> <span className="muted small">{command.summary}</span>
              {command.source !== null && <span className="command-source small">{command.source}</span>}
            </>
          ),
        }))
      : entries.map((entry) => ({ key: entry.path, shown: <code>{entry.directory ? `${entry.path}/` : entry.path}</code> }));
  const list = useRef<HTMLUListElement>(null);
  // A long list scrolls: the highlighted option stays in sight as the arrows move through it.
  useEffect(() => {
    list.current?.querySelector('[aria-selected="true"]')?.scrollIntoView?.({ block: 'nearest' });
  }, [highlighted, menu]);
  return (
    <ul
      ref={list}
      className="slash-menu"
      role="listbox"
      id={`composer-menu-${sessionId}`}
      aria-label={menu === 'commands' ? 'Commands' : 'Files'}
    >
      {options.map(({ key, shown }, index) => (
        <li
          key={key}
          id={`composer-option-${sessionId}-${index}`}
          role="option"
          aria-selected={index === highlighted}
          onMouseDown={(event) => {
            // Keeps the focus in the message box.
            event.preventDefault();
            onPick(index);
          }}
        >
          {shown}
        </li>
      ))}
    </ul>
  );
}
