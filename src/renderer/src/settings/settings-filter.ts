/*
 * The Settings search applied to the page: each setting shown or hidden by the words it carries, each section marked
 * for the style sheet, which hides those left with nothing. Done on the elements, not by drawing the sections again,
 * so a keystroke costs the same however many settings there are.
 */

/** Whether a text (folded, as the settings carry it) holds every word. */
const holds = (text: string, words: readonly string[]): boolean => words.every((word) => text.includes(word));

/**
 * Shows the settings under `root` that hold every word (all of them with no words) and hides the others. A section is
 * marked as searched (`data-filtered`) and, when its title holds every word, as found by it (`data-title-match`): the
 * style sheet hides a searched section with no setting shown, unless its title matched.
 */
export function filterSettings(root: HTMLElement, words: readonly string[]): void {
  const searching = words.length > 0;
  for (const field of root.querySelectorAll<HTMLElement>('[data-setting-field]')) {
    const hide = searching && !holds(field.dataset['settingField'] ?? '', words);
    if (field.hidden !== hide) field.hidden = hide;
  }
  for (const section of root.querySelectorAll<HTMLElement>('[data-section-title]')) {
    section.toggleAttribute('data-filtered', searching);
    section.toggleAttribute('data-title-match', searching && holds(section.dataset['sectionTitle'] ?? '', words));
  }
}
