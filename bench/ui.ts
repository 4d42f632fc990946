/// <reference lib="dom" />
import { writeFileSync } from 'node:fs';
import type { Page } from 'playwright';
import { builtinTools } from '../src/main/tools/builtin-tools';
import { runInPty } from '../src/main/tools/pty-runner';
import { temporaryFolder } from '../test/helpers';
import { longSessionDocument } from '../test/long-session';
import { startTestHost } from '../test/host/host';
import { ScriptedModelServer, type ScriptedTurn } from '../test/scripted-model-server';
import { addSelfTimes, formatSelfTimes, type CpuProfile } from './cpu-profile';
import { measureArgumentStreaming } from './ui-drafts';
import { measureChangesView } from './ui-changes';
import { measureSettings } from './ui-settings';
import { launchChromium, openAppPage, prepareChromium, timeOpen } from './ui-page';
import { BashParser } from '../src/main/shell/bash-parser';

const shell = await BashParser.load();

/*
 * The real UI in Chromium through the test host: a 20,000-token answer and 50 MB of shell output
 * streamed into an open session, counting frames over 50 ms, messages received per second and the
 * heap; then the time from selecting a session of 5,000 events to the first paint of its last
 * turn, against selecting a session of one turn in the same run; first, a tool call's arguments
 * streamed into their drafting card against the same characters streamed as text (`ui-drafts.ts`;
 * `UI_BENCH_ONLY=args` runs only that); then the Changes tab of a session with 500 changed files
 * against one with one changed file (`ui-changes.ts`; `UI_BENCH_ONLY=changes` stops after it). Before all of it, Settings:
 * opening it against opening the shortcuts, and a keystroke in its search against one in a plain field, as 99th
 * percentiles (`ui-settings.ts`; `UI_BENCH_ONLY=settings` runs only that).
 */

const tokens = 20_000;
const shellBytes = 50 * 1024 * 1024;
const shellCommand = process.env['UI_BENCH_COMMAND'] ?? `head -c ${shellBytes} /dev/zero | tr '\\0' 'x' | fold -w 160`;

/** Frames longer than 50 ms, counted in the page by the gaps between animation frames. */
async function watchFrames(page: Page): Promise<void> {
  await page.evaluate(() => {
    const probe = window as unknown as {
      longFrames: number;
      frames: number;
      messages: number;
      stopProbe: boolean;
      long: Array<[number, number]>;
    };
    probe.longFrames = 0;
    probe.long = [];
    const origin = performance.now();
    probe.frames = 0;
    probe.stopProbe = false;
    // Counted from the first frame: the wait for it after a quiet moment is not a frame.
    let last = Number.POSITIVE_INFINITY;
    const tick = (now: number): void => {
      if (now - last > 50) {
        probe.longFrames += 1;
        probe.long.push([Math.round(last - origin), Math.round(now - last)]);
      }
      probe.frames += 1;
      last = now;
      if (!probe.stopProbe) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    // Where a long frame's time went, where the browser can say (long animation frame timing).
    const loaf = window as unknown as { loaf: unknown[] };
    loaf.loaf = [];
    try {
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries() as unknown as Array<{
          startTime: number;
          duration: number;
          blockingDuration: number;
          renderStart: number;
          styleAndLayoutStart: number;
          scripts: Array<{
            duration: number;
            invoker: string;
            sourceURL: string;
            sourceFunctionName: string;
            sourceCharPosition: number;
            forcedStyleAndLayoutDuration: number;
          }>;
        }>) {
          loaf.loaf.push({
            at: Math.round(entry.startTime - origin),
            duration: Math.round(entry.duration),
            scripts: Math.round(entry.scripts.reduce((sum, script) => sum + script.duration, 0)),
            render: Math.round(entry.startTime + entry.duration - (entry.renderStart || entry.startTime + entry.duration)),
            top: entry.scripts
              .sort((a, b) => b.duration - a.duration)
              .slice(0, 3)
              .map(
                (script) =>
                  `${script.invoker} ${script.sourceFunctionName}@${script.sourceCharPosition} ${Math.round(script.duration)}ms forced ${Math.round(script.forcedStyleAndLayoutDuration)}ms`,
              ),
          });
        }
      }).observe({ type: 'long-animation-frame', buffered: false });
    } catch {
      // Not available in this browser.
    }
  });
}

async function readFrames(page: Page): Promise<{ longFrames: number; frames: number }> {
  return page.evaluate(() => {
    const probe = window as unknown as { longFrames: number; frames: number; stopProbe: boolean };
    probe.stopProbe = true;
    return { longFrames: probe.longFrames, frames: probe.frames };
  });
}

export async function runUiBench(): Promise<void> {
  const executablePath = await prepareChromium();
  const folder = temporaryFolder('workbench-bench-ui-');
  const workspace = temporaryFolder('workbench-bench-ui-ws-');
  // A window the 20,000-token answer fits in with room to spare: this bench measures the UI, not the context budget.
  const server = await ScriptedModelServer.start({ models: [{ id: 'scripted-model', contextLength: 131_072 }] });
  const host = await startTestHost({
    dataDir: folder.path,
    validateOutputs: false,
    tools: builtinTools({ shell, dataDir: folder.path, newId: () => `t${Date.now()}`, now: () => Date.now() }),
  });
  const browser = await launchChromium(executablePath);
  try {
    const provider = await host.invoke('provider:save', { kind: 'openai-compatible', name: 'Scripted', baseUrl: server.openaiBaseUrl });
    if (!provider.ok) throw new Error(provider.error.message);
    await host.invoke('settings:update', { defaultModel: { providerId: (provider.value as { id: string }).id, model: 'scripted-model' } });
    const created = await host.invoke('session:create', { title: 'Streaming', workspacePath: workspace.path });
    if (!created.ok) throw new Error(created.error.message);
    const sessionId = (created.value as { id: string }).id;
    await host.invoke('session:setAutonomy', { sessionId, autonomy: 'L3' });
    for (const [document, title] of [
      [longSessionDocument(625, 'Five thousand events'), 'Five thousand events'],
      [longSessionDocument(1, 'One turn'), 'One turn'],
    ] as const) {
      const imported = await host.invoke('session:import', { document });
      if (!imported.ok) throw new Error(imported.error.message);
      void title;
    }

    // The baseline: the same command's 50 MB through a pty while an empty page counts its frames,
    // which is what this machine does without any of the UI's work.
    const blank = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await blank.setContent('<p>Nothing but frames.</p>');
    await blank.evaluate('window.__name = (target) => target');
    await watchFrames(blank);
    await runInPty({
      command: shellCommand,
      cwd: workspace.path,
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' },
      timeoutMs: 60_000,
      signal: new AbortController().signal,
      niceness: 10,
      onOutput: () => undefined,
    });
    const baseline = await readFrames(blank);
    await blank.context().close();

    const page = await openAppPage(browser, host.url);
    const only = process.env['UI_BENCH_ONLY'];
    const settingsCost = only === undefined || only === 'settings' ? await measureSettings(page) : null;
    const settingsFigures = settingsCost
      ? {
          settings_open_p99_ms: Math.round(settingsCost.open.p99),
          shortcuts_open_p99_ms: Math.round(settingsCost.openBaseline.p99),
          settings_open_ratio: Math.round((settingsCost.open.p99 / settingsCost.openBaseline.p99) * 100) / 100,
          settings_search_p99_ms: Math.round(settingsCost.search.p99),
          plain_field_p99_ms: Math.round(settingsCost.searchBaseline.p99),
          settings_search_ratio: Math.round((settingsCost.search.p99 / settingsCost.searchBaseline.p99) * 100) / 100,
          settings_long_frames: settingsCost.longFrames.settings + settingsCost.longFrames.search,
          shortcuts_long_frames: settingsCost.longFrames.shortcuts + settingsCost.longFrames.plain,
        }
      : {};
    if (settingsCost) {
      const words = (name: string, cost: { p50: number; p99: number; samples: number }): string =>
        `${name}: p99 ${cost.p99.toFixed(0)} ms, median ${cost.p50.toFixed(0)} ms (${cost.samples})`;
      console.log(`${words('open Settings', settingsCost.open)}; ${words('open the shortcuts', settingsCost.openBaseline)}`);
      console.log(`${words('search Settings', settingsCost.search)}; ${words('type in a plain field', settingsCost.searchBaseline)}`);
      const long = settingsCost.longFrames;
      console.log(
        `frames over 50 ms: opening and closing Settings ${long.settings}, the shortcuts ${long.shortcuts}; searching ${long.search}, typing in the field ${long.plain}`,
      );
    }
    if (only === 'settings') {
      console.log(JSON.stringify({ bench: 'ui', ...settingsFigures }));
      return;
    }
    // First, in a session of its own: it does not depend on how the long streams below end.
    const drafts = await measureArgumentStreaming(page, host, server, workspace.path);
    for (const [name, cost] of [
      ['text', drafts.text],
      ['tool arguments', drafts.args],
    ] as const)
      console.log(
        `${drafts.characters.toLocaleString()} characters as ${name}: ${cost.frames} frames in ${cost.seconds.toFixed(1)} s, ${cost.busyMs.toFixed(0)} ms busy, ${cost.busyMsPerFrame.toFixed(2)} ms a frame`,
      );
    const draftFigures = {
      text_stream_ms_per_frame: Math.round(drafts.text.busyMsPerFrame * 100) / 100,
      tool_args_stream_ms_per_frame: Math.round(drafts.args.busyMsPerFrame * 100) / 100,
      tool_args_frame_ratio: Math.round(drafts.ratio * 100) / 100,
    };
    if (process.env['UI_BENCH_ONLY'] === 'args') {
      console.log(JSON.stringify({ bench: 'ui', ...draftFigures }));
      return;
    }
    const changes = await measureChangesView(page, host, server, workspace.path);
    console.log(
      `Changes tab, 500 changed files: ${changes.all.many.map((ms) => ms.toFixed(0)).join(', ')} ms; one file: ${changes.all.one.map((ms) => ms.toFixed(0)).join(', ')} ms`,
    );
    const changesFigures = {
      changes_500_files_ms: Math.round(changes.manyMs),
      changes_one_file_ms: Math.round(changes.oneMs),
      changes_ratio: Math.round(changes.ratio * 100) / 100,
    };
    if (process.env['UI_BENCH_ONLY'] === 'changes') {
      console.log(JSON.stringify({ bench: 'ui', ...changesFigures }));
      return;
    }
    await page.getByRole('button', { name: /^Streaming/ }).click();
    // An open session a person is looking at: the page has had a moment to settle since it loaded.
    await page.waitForTimeout(1000);
    await page.evaluate(() => {
      const probe = window as unknown as { messages: number; workbench: { on: Record<string, (listener: () => void) => () => void> } };
      probe.messages = 0;
      probe.workbench.on['session:events']?.(() => (probe.messages += 1));
    });

    // The streams: an answer of 20,000 tokens, then a command printing 50 MB.
    const answerAndCommand: { steps: ScriptedTurn['steps'][number][]; usage: ScriptedTurn['usage'] } = {
      steps: [
        { kind: 'text', text: 'tok '.repeat(tokens), chunkSize: 4 },
        { kind: 'tool_call', id: 'c1', name: 'run_command', arguments: JSON.stringify({ command: shellCommand }) },
      ],
      usage: { inputTokens: 10, outputTokens: tokens },
    };
    if (process.env['UI_BENCH_ONLY'] === 'text') answerAndCommand.steps.splice(1);
    if (process.env['UI_BENCH_ONLY'] === 'shell') answerAndCommand.steps.splice(0, 1);
    server.enqueue(answerAndCommand, { steps: [{ kind: 'text', text: 'Done.' }] });
    await watchFrames(page);
    const profiler = process.env['UI_BENCH_PROFILE'] ? await page.context().newCDPSession(page) : null;
    if (profiler) {
      await profiler.send('Profiler.enable');
      await profiler.send('Profiler.start');
    }
    if (process.env['UI_BENCH_TRACE'])
      await browser.startTracing(page, {
        path: 'test-results/ui-trace.json',
        categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink', 'cc', 'gpu', 'toplevel', 'v8'],
      });
    const started = Date.now();
    await page.getByRole('textbox', { name: 'Message' }).fill('Stream it all');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await host.core.runtime?.whenIdle(sessionId);
    await page.screenshot({ path: 'test-results/screenshots/bench-after-streams.png' });
    if (process.env['UI_BENCH_ONLY'] !== 'text')
      await page.getByRole('article', { name: 'Answer' }).filter({ hasText: 'Done.' }).waitFor({ timeout: 20_000 });
    await page.getByRole('status', { name: 'Session state' }).filter({ hasText: 'done' }).waitFor({ timeout: 20_000 });
    const streamSeconds = (Date.now() - started) / 1000;
    if (process.env['UI_BENCH_TRACE']) await browser.stopTracing();
    if (profiler) {
      const { profile } = (await profiler.send('Profiler.stop')) as { profile: CpuProfile };
      writeFileSync('test-results/ui.cpuprofile', JSON.stringify(profile));
      console.log(formatSelfTimes(addSelfTimes(profile)));
    }
    const { longFrames, frames } = await readFrames(page);
    if (process.env['UI_BENCH_DETAIL'])
      console.log('long animation frames:', JSON.stringify(await page.evaluate(() => (window as unknown as { loaf: unknown }).loaf)));
    if (process.env['UI_BENCH_DETAIL'])
      console.log(
        'long frames (start ms, length ms):',
        JSON.stringify(await page.evaluate(() => (window as unknown as { long: unknown }).long)),
      );
    const messages = await page.evaluate(() => (window as unknown as { messages: number }).messages);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('HeapProfiler.collectGarbage');
    const heap = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number };

    // Opening: the small session first (the baseline), then the large one, each from the streaming session.
    const openSmall = await timeOpen(page, 'One turn', 'Answer 0.');
    await page.getByRole('button', { name: /^Streaming/ }).click();
    const openLarge = await timeOpen(page, 'Five thousand events', 'Answer 624.').catch(async (error: unknown) => {
      await page.screenshot({ path: 'test-results/screenshots/bench-open-failed.png' });
      console.log(
        await page.evaluate(() => {
          const c = document.querySelector('.conversation');
          return JSON.stringify({
            top: c?.scrollTop,
            h: c?.scrollHeight,
            ch: c?.clientHeight,
            rows: [...document.querySelectorAll('.conversation-row')].map((r) => (r as HTMLElement).dataset['index']),
            text: c?.textContent?.slice(-300),
          });
        }),
      );
      throw error;
    });
    if (process.env['UI_BENCH_DETAIL']) {
      const detail = await page.evaluate(async () => {
        const api = (window as unknown as { workbench: { invoke: Record<string, (input: unknown) => Promise<{ value: unknown }>> } })
          .workbench.invoke;
        const list = (await api['session:list']?.({}))?.value as Array<{ id: string; title: string }>;
        const id = list.find((session) => session.title === 'Five thousand events')?.id;
        const started = performance.now();
        await api['session:open']?.({ sessionId: id });
        return performance.now() - started;
      });
      console.log(`session:open alone: ${detail.toFixed(0)} ms`);
      console.log('open frames:', JSON.stringify(await page.evaluate(() => (window as unknown as { openFrames: number[] }).openFrames)));
    }
    await page.screenshot({ path: 'test-results/screenshots/bench-open-5000-events.png' });

    console.log(`streams: ${streamSeconds.toFixed(1)} s, ${frames} frames, ${longFrames} over 50 ms, ${messages} event messages`);
    console.log(`baseline (an empty page while the command runs): ${baseline.frames} frames, ${baseline.longFrames} over 50 ms`);
    console.log(`open: 5,000 events ${openLarge.toFixed(0)} ms, one turn ${openSmall.toFixed(0)} ms`);
    console.log(
      JSON.stringify({
        bench: 'ui',
        long_frames: longFrames,
        baseline_long_frames: baseline.longFrames,
        ipc_msgs_per_s: Math.round(messages / streamSeconds),
        heap_mb: Math.round((heap.usedSize / 1024 / 1024) * 10) / 10,
        open_5000_events_ms: Math.round(openLarge),
        open_one_turn_ms: Math.round(openSmall),
        open_ratio: Math.round((openLarge / openSmall) * 100) / 100,
        ...draftFigures,
        ...changesFigures,
        ...settingsFigures,
      }),
    );
  } finally {
    await browser.close();
    await host.close();
    await server.close();
    folder.remove();
    workspace.remove();
  }
}
