/*
 * The window's regions for the keyboard: F6 and Shift+F6 move between them (the status bar, the sessions, the
 * conversation, what waits at a gate, the message box, the details), and Alt+G goes to what waits for an answer.
 */

/** Elements that can take focus by Tab. */
const tabbable =
  'button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** The regions as drawn, in the order of the page (hidden ones left out). */
function regions(): HTMLElement[] {
  return [...document.querySelectorAll<HTMLElement>('[data-region]')].filter((region) => region.getClientRects().length > 0);
}

/** Focuses where a region is entered: its marked element, else its first control, else the region itself. */
function enter(region: HTMLElement): void {
  const marked = region.hasAttribute('data-region-focus') ? region : region.querySelector<HTMLElement>('[data-region-focus]');
  const first = [...region.querySelectorAll<HTMLElement>(tabbable)].find((element) => element.getClientRects().length > 0);
  const target = marked ?? first ?? region;
  if (target === region && !region.hasAttribute('tabindex')) region.tabIndex = -1;
  target.focus();
}

/** Moves the focus to the next region (or the previous one), from the region it is in; from none, to the first. */
export function cycleRegion(backwards: boolean): void {
  const all = regions();
  if (all.length === 0) return;
  const active = document.activeElement;
  const current = all.findIndex((region) => active instanceof Node && region.contains(active));
  const next = current === -1 ? (backwards ? all.length - 1 : 0) : (current + (backwards ? -1 : 1) + all.length) % all.length;
  const region = all[next];
  if (region) enter(region);
}

/** Focuses the gate shown (above the message box, or a plan waiting in the details); false when none is shown. */
export function focusGate(): boolean {
  const gate = document.querySelector<HTMLElement>('main [data-region="gate"], [data-gate]');
  if (!gate) return false;
  enter(gate);
  gate.scrollIntoView({ block: 'nearest' });
  return true;
}
