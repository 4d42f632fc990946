/// <reference lib="dom" />
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright';
import type { TestHost } from '../test/host/host';
import type { ScriptedModelServer } from '../test/scripted-model-server';

/*
 * Opening the Changes tab of a session whose agent changed 500 files, from a click on the tab to
 * the paint of its count and of the rows in view, against the same for a session whose agent changed one file, in the
 * same run.
 */

/** A session in a folder of `files` files, with one turn whose command changed every one of them. */
async function sessionWithChanges(host: TestHost, server: ScriptedModelServer, root: string, files: number): Promise<string> {
  const workspace = join(root, `changes-${files}`);
  mkdirSync(workspace, { recursive: true });
  for (let index = 1; index <= files; index += 1) writeFileSync(join(workspace, `f${index}.txt`), `file ${index}\nline two\n`);
  const created = await host.invoke('session:create', { title: `Changed ${files}`, workspacePath: workspace });
  if (!created.ok) throw new Error(created.error.message);
  const sessionId = (created.value as { id: string }).id;
  await host.invoke('session:setAutonomy', { sessionId, autonomy: 'L3' });
  server.enqueue(
    {
      steps: [
        {
          kind: 'tool_call',
          id: `c${files}`,
          name: 'run_command',
          arguments: JSON.stringify({ command: "sed -i 's/line two/line 2/' f*.txt" }),
        },
      ],
    },
    { steps: [{ kind: 'text', text: 'Changed.' }] },
  );
  const sent = await host.invoke('run:send', { sessionId, text: 'Change them all' });
  if (!sent.ok) throw new Error(sent.error.message);
  await host.core.runtime?.whenIdle(sessionId);
  return sessionId;
}

/** Milliseconds from a click on the Changes tab to the paint of its count of `rows` paths and the rows in view. */
async function timeChangesTab(page: Page, title: string, rows: number): Promise<number> {
  await page.getByRole('tab', { name: 'Tools' }).click();
  await page.locator('button.session-open', { hasText: title }).click();
  await page.getByRole('article', { name: 'Answer' }).filter({ hasText: 'Changed.' }).waitFor();
  await page.waitForTimeout(300);
  return page.evaluate(async (count) => {
    const tab = [...document.querySelectorAll<HTMLButtonElement>('[role="tab"]')].find((item) => item.textContent === 'Changes');
    if (!tab) throw new Error('no Changes tab');
    const started = performance.now();
    tab.click();
    for (;;) {
      await new Promise((resolve) => requestAnimationFrame(resolve));
      // Open: the count of all the paths is shown, and the rows that fit in view are drawn.
      const total = document.querySelector('.changes-total')?.textContent ?? '';
      if (total.startsWith(`${count} path`) && document.querySelectorAll('.change-list > li').length >= Math.min(count, 10)) break;
      if (performance.now() - started > 30_000) throw new Error('the changes did not show');
    }
    // The frame after the one that laid it out is the one that painted it.
    await new Promise((resolve) => requestAnimationFrame(resolve));
    return performance.now() - started;
  }, rows);
}

export async function measureChangesView(
  page: Page,
  host: TestHost,
  server: ScriptedModelServer,
  root: string,
): Promise<{ manyMs: number; oneMs: number; ratio: number; all: { one: number[]; many: number[] } }> {
  await sessionWithChanges(host, server, root, 1);
  await sessionWithChanges(host, server, root, 500);
  await page.reload();
  const one: number[] = [];
  const many: number[] = [];
  // Alternating, five times each; the median counts (the first opening also compiles the tab's code).
  for (let round = 0; round < 5; round += 1) {
    one.push(await timeChangesTab(page, 'Changed 1', 1));
    many.push(await timeChangesTab(page, 'Changed 500', 500));
  }
  const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
  // Back to the tab a session opens on, so what is measured next runs as it would.
  await page.getByRole('tab', { name: 'Plan' }).click();
  const oneMs = median(one);
  const manyMs = median(many);
  return { manyMs, oneMs, ratio: manyMs / oneMs, all: { one, many } };
}
