/// <reference lib="dom" />
import type { Page } from 'playwright';

/*
 * Settings in the real UI: the time from Ctrl+, to the first paint of the dialog with its sections, against the
 * keyboard shortcuts dialog opened the same way (Ctrl+/); and the time from a keystroke in its search box to the
 * paint of the sections it leaves, against the same keystrokes in a plain field of the same dialog (the endpoint's
 * name). Each is repeated and given as its 99th percentile (and median), with the frames over 50 ms meanwhile.
 */

const opens = 100;
/** Typed a key at a time, then emptied at once: each keystroke, and each emptying, is one measure. */
const queries = ['budget', 'theme', 'command limits', 'mcp server', 'zebra', 'tokens', 'folder'];

export interface Percentiles {
  readonly p50: number;
  readonly p99: number;
  readonly samples: number;
}

function percentiles(samples: readonly number[]): Percentiles {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (share: number): number => sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] ?? 0;
  return { p50: at(0.5), p99: at(0.99), samples: sorted.length };
}

/**
 * Milliseconds from Ctrl+`key` (sent to the window in the page, as the browser sends it to the app's keys, so no time
 * goes to the test's own messages) to the paint after `selector` shows; Esc then closes the dialog it opened.
 */
async function timeDialog(page: Page, key: string, selector: string): Promise<number> {
  const elapsed = await page.evaluate(
    async ({ key: pressed, selector: wanted }) => {
      (window as unknown as { settingsPhase: string }).settingsPhase = wanted;
      const started = performance.now();
      window.dispatchEvent(new KeyboardEvent('keydown', { key: pressed, ctrlKey: true, bubbles: true, cancelable: true }));
      while (!document.querySelector(wanted)) await new Promise((resolve) => requestAnimationFrame(resolve));
      // The frame after the one that laid it out is the one that painted it.
      await new Promise((resolve) => requestAnimationFrame(resolve));
      return performance.now() - started;
    },
    { key, selector },
  );
  await page.keyboard.press('Escape');
  await page.waitForFunction((wanted) => !document.querySelector(wanted), selector);
  return elapsed;
}

/**
 * Types each of `texts` into the input at `selector` a key at a time, then empties it, in the page, and returns the
 * milliseconds from each change to its paint: the paint after the element at `appliedOn` says (in `data-search`) it
 * took the value, or with no `appliedOn` the next paint.
 */
async function timeTyping(page: Page, selector: string, texts: readonly string[], appliedOn: string | null): Promise<number[]> {
  return page.evaluate(
    async ({ selector: inputSelector, texts: words, appliedOn: target }) => {
      (window as unknown as { settingsPhase: string }).settingsPhase = inputSelector;
      const input = document.querySelector<HTMLInputElement>(inputSelector);
      if (!input) throw new Error(`no ${inputSelector}`);
      const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set;
      const frame = (): Promise<unknown> => new Promise((resolve) => requestAnimationFrame(resolve));
      const times: number[] = [];
      const type = async (value: string): Promise<void> => {
        const started = performance.now();
        setValue?.call(input, value);
        input.dispatchEvent(new Event('input', { bubbles: true }));
        while (target && document.querySelector<HTMLElement>(target)?.dataset['search'] !== value) {
          if (performance.now() - started > 5_000) throw new Error(`the search never showed “${value}”`);
          await frame();
        }
        await frame();
        times.push(performance.now() - started);
      };
      for (const word of words) {
        for (let length = 1; length <= word.length; length += 1) await type(word.slice(0, length));
        await type('');
      }
      return times;
    },
    { selector, texts, appliedOn },
  );
}

/**
 * Frames over 50 ms while `work` runs, counted in the page, by what was being measured when each ended (the selector
 * of the dialog opened, or of the field typed in, from the last one to start).
 */
async function countLongFrames(page: Page, work: () => Promise<void>): Promise<Record<string, number>> {
  await page.evaluate(() => {
    const probe = window as unknown as { settingsLong: Record<string, number>; settingsStop: boolean; settingsPhase: string };
    probe.settingsLong = {};
    probe.settingsStop = false;
    probe.settingsPhase = 'start';
    let last = Number.POSITIVE_INFINITY;
    const tick = (now: number): void => {
      if (now - last > 50) probe.settingsLong[probe.settingsPhase] = (probe.settingsLong[probe.settingsPhase] ?? 0) + 1;
      last = now;
      if (!probe.settingsStop) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  await work();
  return page.evaluate(() => {
    const probe = window as unknown as { settingsLong: Record<string, number>; settingsStop: boolean };
    probe.settingsStop = true;
    return probe.settingsLong;
  });
}

export interface SettingsCost {
  readonly open: Percentiles;
  readonly openBaseline: Percentiles;
  readonly search: Percentiles;
  readonly searchBaseline: Percentiles;
  /** Frames over 50 ms while Settings opened and closed, the shortcuts did, and while typing in the search and the field. */
  readonly longFrames: { readonly settings: number; readonly shortcuts: number; readonly search: number; readonly plain: number };
}

/** Opens Settings and the shortcuts `opens` times each, alternating, then types the queries in Settings' search and in a plain field. */
export async function measureSettings(page: Page): Promise<SettingsCost> {
  await page.getByRole('button', { name: 'Settings' }).waitFor();
  const openTimes: number[] = [];
  const baselineTimes: number[] = [];
  let searchTimes: number[] = [];
  let plainTimes: number[] = [];
  const settingsSelector = '.settings-section';
  const shortcutsSelector = 'dialog.modal[open]';
  const plainSelector = 'form[aria-label="Add an endpoint"] input[maxlength="100"]';
  const searchSelector = 'input.settings-search';
  const long = await countLongFrames(page, async () => {
    // Once each first, unmeasured: the first open loads what later ones find ready (code, styles, fonts).
    await timeDialog(page, ',', settingsSelector);
    await timeDialog(page, '/', shortcutsSelector);
    for (let run = 0; run < opens; run += 1) {
      openTimes.push(await timeDialog(page, ',', settingsSelector));
      baselineTimes.push(await timeDialog(page, '/', shortcutsSelector));
    }
    await page.keyboard.press('Control+,');
    // Every section drawn, as the search needs them.
    await page.locator(settingsSelector).nth(15).waitFor();
    // The same keystrokes in a field that filters nothing, then in the search box.
    plainTimes = await timeTyping(page, plainSelector, queries, null);
    searchTimes = await timeTyping(page, searchSelector, queries, '.settings-content');
    await page.keyboard.press('Escape');
  });
  return {
    open: percentiles(openTimes),
    openBaseline: percentiles(baselineTimes),
    search: percentiles(searchTimes),
    searchBaseline: percentiles(plainTimes),
    longFrames: {
      settings: long[settingsSelector] ?? 0,
      shortcuts: long[shortcutsSelector] ?? 0,
      search: long[searchSelector] ?? 0,
      plain: long[plainSelector] ?? 0,
    },
  };
}
