/// <reference lib="dom" />
import type { Page } from 'playwright';
import type { TestHost } from '../test/host/host';
import type { ScriptedModelServer } from '../test/scripted-model-server';

/*
 * A tool call's arguments streamed into the UI (a write_file of 1,200 lines, shown in its drafting
 * card) against the same characters streamed as an answer's text, in the same page and run: the
 * main thread's busy time per frame while each streams, and their ratio. Both come four characters
 * a millisecond or so apart (far faster than a local model), and are measured over the same window
 * of time in the middle of the stream: nothing polls the page meanwhile, and what the finished
 * answer or call draws is left out.
 */

const lines = 1_200;
const content = Array.from({ length: lines }, (_, index) => `line ${index + 1}: const value${index + 1} = ${index + 1};`).join('\n');
const measured = { fromMs: 1_000, toMs: 8_000 };

export interface StreamCost {
  readonly seconds: number;
  readonly frames: number;
  readonly busyMs: number;
  readonly busyMsPerFrame: number;
}

async function measure(page: Page, send: () => Promise<void>, streaming: () => Promise<boolean>): Promise<StreamCost> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const busy = async (): Promise<number> => {
    const { metrics } = (await cdp.send('Performance.getMetrics')) as { metrics: Array<{ name: string; value: number }> };
    return (metrics.find((metric) => metric.name === 'TaskDuration')?.value ?? 0) * 1000;
  };
  await page.evaluate(() => {
    const probe = window as unknown as { draftFrames: number; stopDraftFrames: boolean };
    probe.draftFrames = 0;
    probe.stopDraftFrames = false;
    const tick = (): void => {
      probe.draftFrames += 1;
      if (!probe.stopDraftFrames) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  const sent = Date.now();
  await send();
  await new Promise((resolve) => setTimeout(resolve, measured.fromMs - (Date.now() - sent)));
  const busyBefore = await busy();
  const framesBefore = await page.evaluate(() => (window as unknown as { draftFrames: number }).draftFrames);
  const started = Date.now();
  await new Promise((resolve) => setTimeout(resolve, measured.toMs - (Date.now() - sent)));
  const busyMs = (await busy()) - busyBefore;
  const frames = (await page.evaluate(() => (window as unknown as { draftFrames: number }).draftFrames)) - framesBefore;
  const seconds = (Date.now() - started) / 1000;
  if (!(await streaming())) throw new Error('the stream ended inside the measured window: make it longer');
  await page.evaluate(() => void ((window as unknown as { stopDraftFrames: boolean }).stopDraftFrames = true));
  await cdp.detach();
  return { seconds, frames, busyMs, busyMsPerFrame: busyMs / Math.max(1, frames) };
}

/** Streams the text, then the call, into a session of their own at L3, and measures both. */
export async function measureArgumentStreaming(
  page: Page,
  host: TestHost,
  server: ScriptedModelServer,
  workspacePath: string,
): Promise<{ text: StreamCost; args: StreamCost; ratio: number; characters: number }> {
  const created = await host.invoke('session:create', { title: 'Arguments', workspacePath });
  if (!created.ok) throw new Error(created.error.message);
  const sessionId = (created.value as { id: string }).id;
  await host.invoke('session:setAutonomy', { sessionId, autonomy: 'L3' });
  await page.getByRole('button', { name: /^Arguments/ }).click();
  await page.waitForTimeout(500);
  const box = page.getByRole('textbox', { name: 'Message' });
  const send = (text: string) => async (): Promise<void> => {
    await box.fill(text);
    await box.press('Enter');
  };
  // How the turn ends does not matter here (the written file's diff may not fit the scripted model's window).
  const settle = async (): Promise<void> => {
    await host.core.runtime?.whenIdle(sessionId);
    await page.waitForTimeout(1_000);
  };

  server.enqueue({ steps: [{ kind: 'text', text: content, chunkSize: 4 }], chunkDelayMs: 1 });
  const streamingAnswer = page.getByRole('article', { name: 'Answer' }).and(page.locator('[data-state="streaming"]'));
  const text = await measure(page, send('Stream the text'), async () => (await streamingAnswer.count()) === 1);
  await settle();

  const args = JSON.stringify({ path: 'streamed.ts', content });
  server.enqueue(
    {
      steps: [{ kind: 'tool_call', id: 'call_0', name: 'write_file', arguments: args, chunks: Math.ceil(args.length / 4) }],
      chunkDelayMs: 1,
    },
    { steps: [{ kind: 'text', text: 'Written.' }] },
  );
  const draft = page.getByRole('region', { name: 'Tool write_file being written' });
  const streamedArgs = await measure(page, send('Stream the call'), async () => (await draft.count()) === 1);
  await settle();
  return {
    text,
    args: streamedArgs,
    ratio: streamedArgs.busyMsPerFrame / Math.max(0.001, text.busyMsPerFrame),
    characters: content.length,
  };
}
