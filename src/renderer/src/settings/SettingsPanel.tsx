/*
 * The Settings dialog: a search box over a list of the sections beside the sections themselves (the model endpoints
 * first, then a section for each group of settings), the section in view marked in the list.
 *
 * It opens on its first sections and draws the others a moment later, in the background: opening stays quick however
 * many sections there are, and no frame waits for all of them.
 */

import { useDeferredValue, useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent, type RefObject } from 'react';
import { observeMutations, useDisposables } from '../disposables';
import { useAppState, type AppStore } from '../store';
import { queryWords } from '../text-match';
import { Modal } from '../chrome/Modal';
import { ArchiveSettings } from './ArchiveSettings';
import { BehaviourSettings, TrustGrantSettings } from './BehaviourSettings';
import { BudgetSettings } from './BudgetSettings';
import { CommandLimitsSettings } from './CommandLimitsSettings';
import { ContextSettings } from './ContextSettings';
import { CheckSettings } from './CheckSettings';
import { DatabaseEncryptionNote } from './DatabaseEncryptionNote';
import { PriceSettings } from './PriceSettings';
import { EndpointSettings } from './EndpointSettings';
import { GuardrailSettings } from './GuardrailSettings';
import { LocalModelSettings } from './LocalModelSettings';
import { McpSettings } from './McpSettings';
import { ProfileSettings } from './ProfileSettings';
import { clearHighlights, highlightWords } from './search-highlight';
import { SettingsNav, type SectionJump } from './SettingsNav';
import { SettingsSection, settingField } from './SettingsSection';
import { filterSettings } from './settings-filter';
import { sectionElementId, settingsSections, type SettingsSectionId } from './settings-sections';
import { ThinkingSettings } from './ThinkingSettings';
import { ToolSettings } from './ToolSettings';
import { TrashSettings } from './TrashSettings';
import { FolderTrustSettings } from './FolderTrustSettings';
import { UpdateSettings } from './UpdateSettings';

const allSections: readonly SettingsSectionId[] = settingsSections.map((section) => section.id);

/** How the agent's commands are fenced in on this machine, and the shell they run in (or how to get one). */
function SandboxSettings({ store }: { store: AppStore }) {
  const info = useAppState(store, (state) => state.info);
  const field = settingField('sandbox');
  return (
    <SettingsSection id="sandbox">
      <p className="small" aria-label="Sandbox status" {...field('Sandbox status', info?.sandbox.description)}>
        {info?.sandbox.description}
      </p>
      <p className="small" aria-label="Command shell" {...field('Command shell', info?.commandShell.description)}>
        {info?.commandShell.description}
      </p>
    </SettingsSection>
  );
}

/** Where the app keeps its data, and whether keys can be stored encrypted. */
function DataSettings({ store }: { store: AppStore }) {
  const info = useAppState(store, (state) => state.info);
  const field = settingField('data');
  const keys = info?.secretsEncrypted
    ? 'API keys are encrypted by the operating system.'
    : 'This system offers no encrypted key storage: keys cannot be saved (use ANTHROPIC_API_KEY).';
  return (
    <SettingsSection id="data">
      <p className="small" {...field('Data folder', info?.dataDir)}>
        Data folder: <code>{info?.dataDir}</code>
      </p>
      <p className="small" {...field('API keys', keys)}>
        {keys}
      </p>
      <DatabaseEncryptionNote info={info} />
    </SettingsSection>
  );
}

/** Every section, in the order of the list; before `all`, the first ones only. */
function Sections({ store, all }: { store: AppStore; all: boolean }) {
  return (
    <>
      <EndpointSettings store={store} />
      <LocalModelSettings store={store} />
      {all && (
        <>
          <ContextSettings store={store} />
          <PriceSettings store={store} />
          <ThinkingSettings store={store} />
          <BehaviourSettings store={store} />
          <TrustGrantSettings store={store} />
          <FolderTrustSettings store={store} />
          <ProfileSettings store={store} />
          <BudgetSettings store={store} />
          <ToolSettings store={store} />
          <CheckSettings store={store} />
          <McpSettings store={store} />
          <GuardrailSettings store={store} />
          <SandboxSettings store={store} />
          <CommandLimitsSettings store={store} />
          <UpdateSettings store={store} />
          <TrashSettings store={store} />
          <ArchiveSettings store={store} />
          <DataSettings store={store} />
        </>
      )}
    </>
  );
}

/** The sections the search shows under `content`: those not hidden by the style sheet. */
function shownSections(content: HTMLElement): SettingsSectionId[] {
  return allSections.filter((id) => {
    const element = content.querySelector(`#${sectionElementId(id)}`);
    return element !== null && element.getClientRects().length > 0;
  });
}

/** The section at the top of the scrolled content; at the very end, the one gone to last, when it shows. */
function sectionInView(content: HTMLElement, jumped: SettingsSectionId | null): SettingsSectionId | null {
  const shown = shownSections(content);
  const atEnd = content.scrollTop + content.clientHeight >= content.scrollHeight - 2;
  const last = jumped && shown.includes(jumped) ? content.querySelector<HTMLElement>(`#${sectionElementId(jumped)}`) : null;
  if (atEnd && last && last.offsetTop >= content.scrollTop - 1) return jumped;
  let found: SettingsSectionId | null = shown[0] ?? null;
  for (const id of shown) {
    const element = content.querySelector<HTMLElement>(`#${sectionElementId(id)}`);
    if (element && element.offsetTop <= content.scrollTop + 8) found = id;
  }
  return found;
}

/**
 * The search: what is typed, the sections it leaves, and the marks on what it found, applied to the page as it is
 * typed (`onFiltered` then says so), and again while a search is under way when what a section holds changes (a list
 * that loads, the sections drawn after the first).
 */
function useSettingsSearch(content: RefObject<HTMLDivElement | null>, onFiltered: (words: readonly string[]) => void) {
  const [query, setQuery] = useState('');
  const words = useMemo(() => queryWords(query), [query]);
  const [shown, setShown] = useState<readonly SettingsSectionId[]>(allSections);
  const apply = (): void => {
    const element = content.current;
    if (!element) return;
    filterSettings(element, words);
    const found = words.length === 0 ? allSections : shownSections(element);
    setShown((before) => (before.length === found.length && before.every((id, index) => id === found[index]) ? before : found));
    highlightWords(element, words);
  };
  useLayoutEffect(() => {
    apply();
    onFiltered(words);
  }, [words]);
  useDisposables(
    (disposables) => {
      if (words.length === 0 || !content.current) return;
      disposables.add(
        observeMutations(content.current, { childList: true, subtree: true, attributeFilter: ['data-setting-field'] }, apply),
      );
    },
    [words],
  );
  useEffect(() => clearHighlights, []);
  return { query, setQuery, words, shown };
}

/**
 * Settings, as a dialog: the search box on top, the list of sections on the left (above, in a narrow window), and the
 * sections, one after the other, scrolled to from the list. A search leaves the settings whose label, help or section
 * match, in their sections, the words marked.
 */
export function SettingsPanel({ store, onClose }: { store: AppStore; onClose: () => void }) {
  const content = useRef<HTMLDivElement>(null);
  const search = useRef<HTMLInputElement>(null);
  const [current, setCurrent] = useState<SettingsSectionId>(allSections[0] ?? 'endpoints');
  /** The section last gone to from the list: it stays current at the end of the content, where it may not reach the top. */
  const jumped = useRef<SettingsSectionId | null>(null);
  const { query, setQuery, words, shown } = useSettingsSearch(content, (filtered) => {
    const element = content.current;
    if (!element) return;
    // What a search found is read from its start; an emptied search goes back to the section last in view.
    const back = filtered.length === 0 ? element.querySelector<HTMLElement>(`#${sectionElementId(current)}`) : null;
    element.scrollTop = back?.offsetTop ?? 0;
    setCurrent((before) => sectionInView(element, jumped.current) ?? before);
  });
  /** The first sections are drawn at once; all of them right after, in the background. */
  const all = useDeferredValue(true, false);
  // The sections change only with the store: typing in the search box filters them, it does not draw them anew.
  const sections = useMemo(() => <Sections store={store} all={all} />, [store, all]);
  /** A section gone to before it was drawn: gone to once it is. */
  const pending = useRef<{ id: SettingsSectionId; how: SectionJump } | null>(null);

  useEffect(() => search.current?.focus(), []);

  const jump = (id: SettingsSectionId, how: SectionJump): void => {
    const element = content.current?.querySelector<HTMLElement>(`#${sectionElementId(id)}`);
    if (!content.current) return;
    if (!element) {
      pending.current = { id, how };
      return;
    }
    jumped.current = id;
    content.current.scrollTop = element.offsetTop;
    setCurrent(id);
    if (how === 'enter') element.querySelector<HTMLElement>('h3')?.focus({ preventScroll: true });
  };
  useLayoutEffect(() => {
    const waiting = pending.current;
    pending.current = null;
    if (all && waiting) jump(waiting.id, waiting.how);
  }, [all]);
  const onSearchKey = (event: KeyboardEvent<HTMLInputElement>): void => {
    // Esc empties the search first; an empty search lets it close the dialog.
    if (event.key === 'Escape' && query !== '') {
      event.preventDefault();
      setQuery('');
    }
  };

  return (
    <Modal title="Settings" closeLabel="Close settings" className="settings-dialog" onClose={onClose}>
      <input
        ref={search}
        type="search"
        className="settings-search"
        aria-label="Search settings"
        placeholder="Search settings"
        value={query}
        maxLength={200}
        onChange={(event) => setQuery(event.target.value)}
        onKeyDown={onSearchKey}
      />
      <div className="settings-body">
        <SettingsNav shown={shown} current={current} onJump={jump} />
        <div
          ref={content}
          className="settings-content"
          // What the sections are filtered by: for the benchmark to wait on.
          data-search={query}
          onScroll={(event) => {
            const inView = sectionInView(event.currentTarget, jumped.current);
            if (inView) setCurrent(inView);
          }}
        >
          <p className="settings-no-match" role="status">
            {words.length > 0 && shown.length === 0 ? `No setting matches “${query.trim()}”.` : ''}
          </p>
          {sections}
        </div>
      </div>
    </Modal>
  );
}
