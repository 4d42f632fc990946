/*
 * What the window's search boxes share: a query read as words, and whether a text holds them all, whatever the case
 * and the accents.
 */

/** Lower case without accents ("Behaviour" and "behaviour", "Café" and "cafe" are the same), spaces collapsed. */
export function foldText(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .toLowerCase()
    .replace(/\s+/g, ' ');
}

/** The words of a query, folded; none for a query of spaces. */
export function queryWords(query: string): readonly string[] {
  return foldText(query)
    .split(' ')
    .filter((word) => word !== '');
}

/** Whether every word is somewhere in the texts (not necessarily in the same one); true when there are no words. */
export function matchesWords(words: readonly string[], ...texts: ReadonlyArray<string | null | undefined>): boolean {
  if (words.length === 0) return true;
  const haystack = foldText(texts.filter((text) => text).join(' \u0000 '));
  return words.every((word) => haystack.includes(word));
}
