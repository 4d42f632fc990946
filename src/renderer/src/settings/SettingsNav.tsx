/*
 * The list of Settings' sections beside them (above them in a narrow window): a click or Enter goes to a section, the
 * arrow keys, Home and End move along the list and show each section as they go.
 */

import { useEffect, useRef, type KeyboardEvent } from 'react';
import { settingsSections, type SettingsSectionId } from './settings-sections';

/** How a section is gone to: by the keys of the list (the focus stays in it), or by a click or Enter (it goes in). */
export type SectionJump = 'browse' | 'enter';

/**
 * The sections shown (all of them, or those the search found), the one in view marked current. One Tab stop: the arrow
 * keys move between the entries, each move showing its section.
 */
export function SettingsNav({
  shown,
  current,
  onJump,
}: {
  shown: readonly SettingsSectionId[];
  current: SettingsSectionId;
  onJump: (id: SettingsSectionId, how: SectionJump) => void;
}) {
  const list = useRef<HTMLUListElement>(null);
  const entries = settingsSections.filter((section) => shown.includes(section.id));
  const focusable = entries.some((entry) => entry.id === current) ? current : entries[0]?.id;
  // The current entry stays in sight, also where the list is one row that scrolls sideways.
  useEffect(() => {
    list.current?.querySelector('[aria-current="true"]')?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [current]);
  const move = (event: KeyboardEvent<HTMLButtonElement>, index: number): void => {
    const last = entries.length - 1;
    const next =
      event.key === 'ArrowDown' || event.key === 'ArrowRight'
        ? Math.min(last, index + 1)
        : event.key === 'ArrowUp' || event.key === 'ArrowLeft'
          ? Math.max(0, index - 1)
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? last
              : null;
    if (next === null) return;
    event.preventDefault();
    const target = entries[next];
    if (!target) return;
    list.current?.querySelectorAll<HTMLButtonElement>('button')[next]?.focus();
    onJump(target.id, 'browse');
  };
  return (
    <nav className="settings-nav" aria-label="Sections of Settings">
      <ul ref={list}>
        {entries.map((section, index) => (
          <li key={section.id}>
            <button
              type="button"
              aria-current={section.id === current ? 'true' : undefined}
              tabIndex={section.id === focusable ? 0 : -1}
              onKeyDown={(event) => move(event, index)}
              // A click made with Enter or Space (no pointer: detail 0) takes the focus into the section, for Tab to go on there.
              onClick={(event) => onJump(section.id, event.detail === 0 ? 'enter' : 'browse')}
            >
              {section.title}
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}
