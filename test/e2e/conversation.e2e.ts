import type { Page } from 'playwright';
import { expect as expectPage } from 'playwright/test';
import { describe, expect, it } from 'vitest';
import { longSessionDocument } from '../long-session';
import { textTurn } from '../scripted-model-server';
import { useWorkbenches } from './fixture';

/** Pixels between the bottom of the conversation's view and the end of its content. */
function distanceFromEnd(page: Page): Promise<number> {
  return page.locator('.conversation').evaluate((element) => element.scrollHeight - element.scrollTop - element.clientHeight);
}

/** The message row at the middle of the view, and how far its top is from the view's top. */
function rowInView(page: Page): Promise<string> {
  return page.locator('.conversation').evaluate((element) => {
    const view = element.getBoundingClientRect();
    const middle = view.top + view.height / 2;
    const row = [...element.querySelectorAll<HTMLElement>('.conversation-row')].find((candidate) => {
      const box = candidate.getBoundingClientRect();
      return box.top <= middle && box.bottom > middle;
    });
    return row ? `row ${row.dataset['index']} at ${Math.round(row.getBoundingClientRect().top - view.top)} px` : 'no row';
  });
}

/** Waits for a few painted frames, so anything the page would still move has moved. */
async function settle(page: Page, frames = 6): Promise<void> {
  await page.evaluate(async (count) => {
    for (let frame = 0; frame < count; frame += 1) await new Promise((resolve) => requestAnimationFrame(resolve));
  }, frames);
}

describe('the conversation view', () => {
  const open = useWorkbenches();

  it('a long session opens on its last turn and stays there when the rest of it arrives, and all of it can be scrolled to', async () => {
    const workbench = await open();
    const { page, host } = workbench;
    for (const [turns, title] of [
      [625, 'Five thousand events'],
      [1, 'One turn'],
    ] as const) {
      const imported = await host.invoke('session:import', { document: longSessionDocument(turns, title) });
      expect(imported.ok).toBe(true);
    }
    await page.reload();
    // Opened from another session, as a person would switch to it.
    await page.getByRole('button', { name: /^One turn/ }).click();
    await expectPage(page.getByRole('article', { name: 'Answer' }).filter({ hasText: 'Answer 0.' })).toBeInViewport();
    await page.getByRole('button', { name: /^Five thousand events/ }).click();
    const lastAnswer = page.getByRole('article', { name: 'Answer' }).filter({ hasText: 'Answer 624.' });
    await expectPage(lastAnswer).toBeInViewport();
    await expectPage(page.getByText('Loading earlier messages…')).toHaveCount(0);
    await settle(page);
    await expectPage(lastAnswer).toBeInViewport();
    expect(await distanceFromEnd(page)).toBeLessThan(40);
    // Only what is in view is in the page.
    expect(await page.locator('.conversation-row').count()).toBeLessThan(40);
    await workbench.screenshot('long-session-opened');

    // The very first question is there too, at the top, and the end is still at the end.
    await page.locator('.conversation').hover();
    await page.mouse.wheel(0, -1_000_000);
    await expectPage(page.getByRole('article', { name: 'Your message' }).filter({ hasText: 'Question 0:' })).toBeInViewport();
    await page.mouse.wheel(0, 1_000_000);
    await expectPage(lastAnswer).toBeInViewport();
  });

  it('scrolled up, a streaming answer leaves the view where it is; at the end it follows; sending brings the end back', async () => {
    const workbench = await open();
    const { page, host, server } = workbench;
    await workbench.configureScriptedModel();
    const imported = await host.invoke('session:import', { document: longSessionDocument(12, 'Twelve turns') });
    expect(imported.ok).toBe(true);
    await page.reload();
    await page.getByRole('button', { name: /^Twelve turns/ }).click();
    await expectPage(page.getByRole('article', { name: 'Answer' }).filter({ hasText: 'Answer 11.' })).toBeInViewport();

    // A long, slow answer: the view follows it while it is at the end.
    server.enqueue(textTurn('Streaming line.\n\n'.repeat(300), { chunkSize: 16, chunkDelayMs: 20 }), textTurn('The second answer.'));
    await page.getByRole('textbox', { name: 'Message' }).fill('Tell me at length');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    const streaming = page.getByRole('article', { name: 'Answer' }).last();
    await expectPage(streaming).toHaveAttribute('data-state', 'streaming');
    await expectPage(streaming).toContainText('Streaming line.');
    // Between a delta and the next frame the end may be a line away; the view catches up each frame.
    await expectPage.poll(() => distanceFromEnd(page)).toBeLessThan(40);
    await expectPage.poll(async () => (await streaming.textContent())?.length ?? 0).toBeGreaterThan(600);
    await expectPage.poll(() => distanceFromEnd(page)).toBeLessThan(40);

    // The person scrolls up: one small step, as a touchpad makes, is enough to leave the end, and
    // the stream goes on below without pulling the view back or moving it.
    await page.locator('.conversation').hover();
    await page.mouse.wheel(0, -5);
    await expectPage(page.getByRole('button', { name: 'Jump to the latest message' })).toBeVisible();
    await page.mouse.wheel(0, -1200);
    await expectPage.poll(() => distanceFromEnd(page)).toBeGreaterThan(600);
    // Once the wheel's scroll has come to rest, that is what the person is reading.
    let held = '';
    await expectPage
      .poll(async () => {
        const previous = held;
        await settle(page, 3);
        held = await rowInView(page);
        return held === previous;
      })
      .toBe(true);
    const lengthBefore = (await streaming.textContent())?.length ?? 0;
    await expectPage.poll(async () => (await streaming.textContent())?.length ?? 0).toBeGreaterThan(lengthBefore + 200);
    await settle(page);
    expect(await rowInView(page)).toBe(held);
    await workbench.screenshot('conversation-scrolled-up-while-streaming');
    await expectPage(streaming).toHaveAttribute('data-state', 'done', { timeout: 20_000 });
    expect(await rowInView(page)).toBe(held);

    // The way back down is one click, and from there the view follows again.
    const jump = page.getByRole('button', { name: 'Jump to the latest message' });
    await jump.click();
    await expectPage(jump).toHaveCount(0);
    await expectPage.poll(() => distanceFromEnd(page)).toBeLessThan(40);
    await page.mouse.wheel(0, -800);
    await expectPage(jump).toBeVisible();

    // Sending a message brings the end back into view, and the view follows the new answer.
    await page.getByRole('textbox', { name: 'Message' }).fill('And briefly?');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    const second = page.getByRole('article', { name: 'Answer' }).filter({ hasText: 'The second answer.' });
    await expectPage(second).toBeInViewport();
    await settle(page);
    expect(await distanceFromEnd(page)).toBeLessThan(40);
    await workbench.screenshot('conversation-after-sending');
  });

  it('closing “What the model saw” leaves the conversation where it was, and “↓ Latest” shows only away from the end', async () => {
    const workbench = await open();
    const { page, server } = workbench;
    await workbench.configureScriptedModel();
    await page.getByRole('button', { name: '+ New session' }).first().click();
    for (let turn = 0; turn < 4; turn += 1) {
      server.enqueue(textTurn(`Answer ${turn}.\n\n${'A line of the answer.\n\n'.repeat(12)}`));
      await page.getByRole('textbox', { name: 'Message' }).fill(`Question ${turn}`);
      await page.getByRole('textbox', { name: 'Message' }).press('Enter');
      await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toContainText(`Answer ${turn}.`);
    }
    const jump = page.getByRole('button', { name: 'Jump to the latest message' });
    await settle(page);
    expect(await distanceFromEnd(page)).toBeLessThan(40);
    await expectPage(jump).toHaveCount(0);

    const scrollTop = (): Promise<number> => page.locator('.conversation').evaluate((element) => element.scrollTop);
    const before = await scrollTop();
    await page.getByRole('button', { name: 'What the model saw' }).last().click();
    const dialog = page.getByRole('dialog', { name: 'What the model saw' });
    await expectPage(dialog.locator('details').first()).toBeVisible();
    // Reading the prompt scrolls the dialog, not the conversation behind it.
    await dialog.hover();
    await page.mouse.wheel(0, -400);
    await page.mouse.wheel(0, 200);
    await dialog.locator('summary').first().click();
    await dialog.getByRole('button', { name: 'Close the prompt' }).click();
    await expectPage(dialog).toHaveCount(0);
    await settle(page);
    expect(await scrollTop()).toBe(before);
    expect(await distanceFromEnd(page)).toBeLessThan(40);
    await expectPage(page.getByRole('article', { name: 'Answer' }).filter({ hasText: 'Answer 3.' })).toBeInViewport();
    await expectPage(jump).toHaveCount(0);

    // Closed with Esc, the same.
    await page.getByRole('button', { name: 'What the model saw' }).last().click();
    await expectPage(dialog).toBeVisible();
    await page.keyboard.press('PageUp');
    await page.keyboard.press('Escape');
    await expectPage(dialog).toHaveCount(0);
    await settle(page);
    expect(await distanceFromEnd(page)).toBeLessThan(40);
    await expectPage(jump).toHaveCount(0);

    // Scrolled up, the button shows; scrolled back to the end by hand, it goes.
    await page.locator('.conversation').hover();
    await page.mouse.wheel(0, -600);
    await expectPage(jump).toBeVisible();
    // From there too, the prompt of an answer in view opens and closes over the conversation without moving it.
    const inView = page.getByRole('button', { name: 'What the model saw' });
    const clearOfEdges = async (): Promise<number> => {
      const all = await inView.all();
      for (const [index, button] of all.entries()) {
        const clear = await button.evaluate((element) => {
          const view = element.closest('.conversation')?.getBoundingClientRect();
          const box = element.getBoundingClientRect();
          return view !== undefined && box.height > 0 && box.top > view.top + 20 && box.bottom < view.bottom - 80;
        });
        if (clear) return index;
      }
      return -1;
    };
    let found = await clearOfEdges();
    for (let step = 0; step < 20 && found < 0; step += 1) {
      await page.mouse.wheel(0, -150);
      await settle(page, 2);
      found = await clearOfEdges();
    }
    expect(found).toBeGreaterThanOrEqual(0);
    await settle(page);
    const middle = await scrollTop();
    await inView.nth(found).click();
    await expectPage(dialog).toBeVisible();
    await dialog.getByRole('button', { name: 'Close the prompt' }).click();
    await settle(page);
    expect(await scrollTop()).toBe(middle);
    await expectPage(jump).toBeVisible();
    await page.locator('.conversation').hover();
    await page.mouse.wheel(0, 100_000);
    await expectPage.poll(() => distanceFromEnd(page)).toBeLessThan(2);
    await expectPage(jump).toHaveCount(0);
  });

  it('says a connection that dropped in the middle of an answer in words, with what the network layer said under Details', async () => {
    const workbench = await open();
    const { page, server } = workbench;
    await workbench.configureScriptedModel();
    await page.getByRole('button', { name: '+ New session' }).first().click();
    server.enqueue({
      steps: [{ kind: 'text', text: 'The start of an answer that is cut', chunkSize: 2 }],
      fault: { kind: 'drop', afterChunks: 5 },
    });
    await page.getByRole('textbox', { name: 'Message' }).fill('Tell me');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    const error = page.getByRole('article', { name: 'Answer' }).last().getByRole('alert');
    await expectPage(error).toContainText('dropped in the middle of the answer');
    // What shows is the words; the network layer's own words are folded under Details.
    const shown = await error.innerText();
    expect(shown).not.toContain('UND_ERR');
    expect(shown).not.toContain('other side closed');
    await error.getByText('Details').click();
    expect(await error.innerText()).toContain('other side closed (UND_ERR_SOCKET)');
    await workbench.screenshot('conversation-error-details');
  });
});
