/*
 * What the Settings search found, marked in the text of the settings it shows, with the browser's highlights (the
 * CSS Custom Highlight API): nothing in the page is rewritten, and the mark goes when the search does.
 */

const name = 'settings-search';

/** Text in these is not drawn as text where a highlight would show (a select's options, a text area's value). */
const skipped = new Set(['OPTION', 'SELECT', 'TEXTAREA', 'SCRIPT', 'STYLE']);

/** The ranges of `text` (lower case) where each word is, in a text node. */
function rangesIn(node: Text, words: readonly string[]): Range[] {
  const text = node.data.toLowerCase();
  const ranges: Range[] = [];
  for (const word of words) {
    for (let at = text.indexOf(word); at !== -1; at = text.indexOf(word, at + word.length)) {
      const range = new Range();
      range.setStart(node, at);
      range.setEnd(node, at + word.length);
      ranges.push(range);
    }
  }
  return ranges;
}

/**
 * Marks each word in the text of what the search shows under `root`: the settings not hidden and the titles of the
 * sections shown. Returns how many places were marked; with no words (or a browser without highlights) it marks none
 * and takes away any mark left.
 */
export function highlightWords(root: HTMLElement, words: readonly string[]): number {
  if (typeof CSS === 'undefined' || !('highlights' in CSS)) return 0;
  if (words.length === 0) {
    CSS.highlights.delete(name);
    return 0;
  }
  const ranges: Range[] = [];
  for (const element of root.querySelectorAll<HTMLElement>('[data-setting-field]:not([hidden]), .settings-section > h3')) {
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT, {
      acceptNode: (node) =>
        node.parentElement && skipped.has(node.parentElement.tagName) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT,
    });
    for (let node = walker.nextNode(); node; node = walker.nextNode()) ranges.push(...rangesIn(node as Text, words));
  }
  CSS.highlights.set(name, new Highlight(...ranges));
  return ranges.length;
}

/** Takes away the marks of the search. */
export function clearHighlights(): void {
  if (typeof CSS !== 'undefined' && 'highlights' in CSS) CSS.highlights.delete(name);
}
