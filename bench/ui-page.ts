/// <reference lib="dom" />
import { spawnSync } from 'node:child_process';
import { chromium, type Browser, type Page } from 'playwright';
import { chromiumArguments, findChromium } from '../scripts/find-chromium.mjs';

/*
 * What the benchmarks of the real UI share: building the renderer and the test host's bridge,
 * Chromium as they launch it, the app's page, and the time to open a session in it.
 */

/** Builds the renderer and the bridge into out/, then finds Chromium; returns its path. */
export async function prepareChromium(): Promise<string> {
  const build = spawnSync('npm', ['run', 'build:test-host'], { stdio: 'inherit' });
  if (build.status !== 0) throw new Error('the build failed');
  const executablePath = await findChromium();
  if (!executablePath) throw new Error('Chromium was not found');
  return executablePath;
}

export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    args: [...chromiumArguments],
  });
}

/** The app's page at `url` (the test host's), in a window of a usual size. */
export async function openAppPage(browser: Browser, url: string): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  // tsx names the functions it compiles with a helper the page does not have.
  await page.addInitScript({ content: 'window.__name = (target) => target;' });
  await page.goto(url);
  return page;
}

/** Milliseconds from selecting a session to the first paint that shows `lastText`. */
export async function timeOpen(page: Page, title: string, lastText: string): Promise<number> {
  return page.evaluate(
    async ({ title: name, lastText: text }) => {
      const button = [...document.querySelectorAll<HTMLButtonElement>('button.session-open')].find((candidate) =>
        candidate.textContent?.startsWith(name),
      );
      if (!button) throw new Error(`no session ${name}`);
      const started = performance.now();
      button.click();
      const frames: number[] = [];
      for (;;) {
        await new Promise((resolve) => requestAnimationFrame(resolve));
        frames.push(Math.round(performance.now() - started));
        (window as unknown as { openFrames: number[] }).openFrames = frames;
        if (document.querySelector('.conversation')?.textContent?.includes(text)) break;
        if (performance.now() - started > 30_000) throw new Error('the session did not open');
      }
      // The frame after the one that laid it out is the one that painted it.
      await new Promise((resolve) => requestAnimationFrame(resolve));
      return performance.now() - started;
    },
    { title, lastText },
  );
}
