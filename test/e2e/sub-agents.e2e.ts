import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect as expectPage } from 'playwright/test';
import { describe, expect, it, onTestFinished } from 'vitest';
import { answerGoal, checkGoal } from '../../src/main/agent/session/plan-graph';
import { builtinTools } from '../../src/main/tools/builtin-tools';
import { BashParser } from '../../src/main/shell/bash-parser';
import { toolCall } from '../main/agent/harness';
import { textTurn } from '../scripted-model-server';
import { ScriptByAsker, requestsOf } from '../scripted-model-server/by-asker';
import { temporaryFolder } from '../helpers';
import { useWorkbenches } from './fixture';

const shell = await BashParser.load();

describe('sub-agents in the workbench', () => {
  const open = useWorkbenches();

  it('two sub-agents work at once, one asks from the inbox, and the answer brings both together', async () => {
    const byAsker = new ScriptByAsker();
    const workbench = await open(
      { tools: builtinTools({ shell, dataDir: join('/tmp', 'unused-trash'), newId: () => `t${Date.now()}`, now: () => Date.now() }) },
      { fallback: byAsker.route },
    );
    const { page, host, server } = workbench;
    await workbench.configureScriptedModel();
    const folder = temporaryFolder('workbench-sub-agents-');
    onTestFinished(() => folder.remove());
    const created = await host.invoke('session:create', { title: 'Survey and summarize', workspacePath: folder.path });
    if (!created.ok) throw new Error(created.error.message);
    await page.reload();
    await page.getByRole('button', { name: /^Survey and summarize/ }).click();

    byAsker.scripts = new Map([
      [
        'parent',
        [
          {
            steps: [
              toolCall('delegate', { goal: 'Survey the notes', returns: 'their names' }, 'd1'),
              toolCall('delegate', { goal: 'Write the summary', tools: 'read_write' }, 'd2'),
            ],
          },
          textTurn('Together: the notes are a and b, and summary.md holds the summary.'),
        ],
      ],
      ['Survey the notes', [textTurn('Notes: a and b.', { chunkSize: 4, chunkDelayMs: 20 })]],
      [
        'Write the summary',
        [{ steps: [toolCall('write_file', { path: 'summary.md', content: '# Summary\n' }, 'w1')] }, textTurn('Wrote summary.md.')],
      ],
    ]);
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('Survey the notes and write a summary');
    await box.press('Enter');

    // The writing sub-agent asks; the inbox names it and the session it works for.
    const inbox = page.getByRole('button', { name: 'Inbox 1 waiting' });
    await expectPage(inbox).toBeVisible();
    // Both ran at once: the reading one had its answer while the other waited at its gate.
    await expectPage(page.getByRole('group', { name: 'Sub-agent', exact: true }).first()).toContainText('answered');
    // The card of the one that asks says what it is doing, live, and offers to answer it.
    const asking = page.getByRole('group', { name: 'Sub-agent', exact: true }).nth(1);
    await expectPage(asking.getByLabel('What it is doing')).toContainText('write_file summary.md');
    await expectPage(asking.getByRole('button', { name: 'Answer it' })).toBeVisible();
    // Its work streams in its card as any turn's does: its call, as its own session shows it.
    const work = asking.getByRole('log', { name: 'Its work, live' });
    await expectPage(work.getByRole('region', { name: 'Tool write_file' })).toContainText('summary.md');
    await workbench.screenshot('sub-agent-live');
    await inbox.click();
    const waiting = page.getByRole('list', { name: 'Waiting for you' });
    await expectPage(waiting).toContainText('Sub-agent: Write the summary for Survey and summarize');
    await waiting.getByRole('button', { name: 'Sub-agent: Write the summary' }).click();

    // Its own session: whom it works for, its brief, its gate; no message box of its own.
    await expectPage(page.getByRole('note', { name: 'Sub-agent session' })).toContainText('A sub-agent working for “Survey and summarize”');
    await expectPage(page.getByRole('article', { name: 'Your message' })).toContainText('Goal: Write the summary');
    await expectPage(page.getByRole('textbox', { name: 'Message' })).toHaveCount(0);
    const gate = page.getByRole('region', { name: 'Approval needed' });
    await expectPage(gate).toContainText('write_file');
    await workbench.screenshot('sub-agent-gate');
    expect(existsSync(join(folder.path, 'summary.md'))).toBe(false);
    await gate.getByRole('button', { name: 'Allow once' }).click();
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toContainText('Wrote summary.md.');
    expect(readFileSync(join(folder.path, 'summary.md'), 'utf8')).toBe('# Summary\n');

    // Back to the session it works for: the answer that brings both together.
    await page.getByRole('button', { name: 'Back to Survey and summarize' }).click();
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toContainText('Together: the notes are a and b');
    const links = page.getByRole('group', { name: 'Sub-agent', exact: true });
    await expectPage(links).toHaveCount(2);
    await expectPage(links.nth(0)).toContainText('Sub-agent “Survey the notes”: answered · reads only');
    await expectPage(links.nth(1)).toContainText('Sub-agent “Write the summary”: answered · may change files');
    // Once it has answered, its card folds to its one line.
    await expectPage(links.nth(1).getByRole('log', { name: 'Its work, live' })).toHaveCount(0);
    await workbench.screenshot('sub-agents-answered');
    // Sub-agents are not listed with the person's sessions.
    await expectPage(page.getByRole('navigation', { name: 'Sessions' })).not.toContainText('Sub-agent');
    // The parent's context held their answers, not their work.
    const last = requestsOf(server.requests, 'parent').at(-1);
    expect(JSON.stringify(last?.body['messages'])).toContain('Notes: a and b.');
    expect(JSON.stringify(last?.body['messages'])).not.toContain('# Summary');

    // Changes and History say which sub-agent changed the file, and Changes leads to it.
    const details = page.getByRole('complementary', { name: 'Details' });
    if (!(await details.isVisible())) await page.keyboard.press('Control+j');
    await details.getByRole('tab', { name: 'Changes' }).click();
    const changed = details.getByRole('list', { name: 'Changed paths' }).getByRole('listitem');
    await expectPage(changed).toHaveCount(1);
    await expectPage(changed.first()).toContainText('summary.md');
    await expectPage(changed.first().getByRole('button', { name: 'by sub-agent “Write the summary”' })).toBeVisible();
    await details.getByRole('tab', { name: 'History' }).click();
    await expectPage(details.getByRole('list', { name: 'Checkpoints' })).toContainText(/Sub-agent “Write the summary”.*1 file changed/);
    await details.getByRole('tab', { name: 'Changes' }).click();
    await changed.first().getByRole('button', { name: 'by sub-agent “Write the summary”' }).click();
    await expectPage(page.getByRole('note', { name: 'Sub-agent session' })).toBeVisible();
    await page.getByRole('button', { name: 'Back to Survey and summarize' }).click();

    // A finished sub-agent's session opens from its card, with its whole transcript.
    await links.nth(0).getByRole('button', { name: 'Open its session' }).click();
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toContainText('Notes: a and b.');
  });

  it('a plan as a graph: approved at its gate, two steps at once, one asking from the inbox, and the answer from both', async () => {
    const byAsker = new ScriptByAsker();
    const workbench = await open(
      { tools: builtinTools({ shell, dataDir: join('/tmp', 'unused-trash'), newId: () => `t${Date.now()}`, now: () => Date.now() }) },
      { fallback: byAsker.route },
    );
    const { page, host } = workbench;
    await workbench.configureScriptedModel();
    const folder = temporaryFolder('workbench-plan-graph-');
    onTestFinished(() => folder.remove());
    const created = await host.invoke('session:create', { title: 'Plan it', workspacePath: folder.path });
    if (!created.ok) throw new Error(created.error.message);
    await page.reload();
    await page.getByRole('button', { name: /^Plan it/ }).click();
    byAsker.scripts = new Map([
      [
        'parent',
        [
          {
            steps: [
              toolCall(
                'run_plan',
                {
                  goal: 'Survey and summarize',
                  steps: [
                    { id: 'survey', goal: 'Survey the notes', returns: 'their names' },
                    { id: 'summary', goal: 'Write the summary', tools: 'read_write' },
                    { id: 'check', goal: 'Check the summary against the survey', dependsOn: ['survey', 'summary'] },
                  ],
                },
                'p1',
              ),
            ],
          },
          textTurn('From the plan: notes a and b, summarized in summary.md, and checked.'),
        ],
      ],
      ['Survey the notes', [textTurn('Notes: a and b.', { chunkSize: 4, chunkDelayMs: 20 })]],
      [
        'Write the summary',
        [{ steps: [toolCall('write_file', { path: 'summary.md', content: '# Summary\n' }, 'w1')] }, textTurn('Wrote summary.md.')],
      ],
      ['Check the summary against the survey', [textTurn('The summary covers a and b.')]],
      [answerGoal({ goal: 'Survey and summarize' }), [textTurn('Notes a and b, summarized in summary.md.')]],
      [checkGoal({ goal: 'Survey and summarize' }), [textTurn('PASS: both notes are surveyed and summarized.')]],
    ]);
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('Survey the notes and summarize them, as a plan');
    await box.press('Enter');

    // A step may write: the plan is approved as a whole first, its steps shown at the gate.
    const gate = page.getByRole('region', { name: 'Approval needed' });
    const steps = gate.getByRole('list', { name: 'Steps of the plan' });
    await expectPage(steps.getByRole('listitem')).toHaveCount(3);
    await expectPage(steps.getByRole('listitem').nth(2)).toContainText('after survey, summary');
    await workbench.screenshot('plan-graph-gate');
    await gate.getByRole('button', { name: 'Allow once' }).click();

    // The writing step asks from the inbox, while the reading one has answered.
    await expectPage(page.getByRole('button', { name: 'Inbox 1 waiting' })).toBeVisible();
    const card = page.getByRole('region', { name: 'Tool run_plan' });
    const cardSteps = card.getByRole('list', { name: 'Steps of the plan' }).getByRole('listitem');
    await expectPage(cardSteps.nth(0)).toContainText('answered');
    await expectPage(cardSteps.nth(1)).toContainText('waiting for your answer');
    await page.getByRole('button', { name: 'Inbox 1 waiting' }).click();
    await page.getByRole('list', { name: 'Waiting for you' }).getByRole('button', { name: 'Sub-agent: Write the summary' }).click();
    await page.getByRole('region', { name: 'Approval needed' }).getByRole('button', { name: 'Allow once' }).click();
    await page.getByRole('button', { name: 'Back to Plan it' }).click();

    // The last step ran after both, and the answer brings the results together.
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toContainText('From the plan: notes a and b');
    await expectPage(cardSteps.nth(2)).toContainText('answered');
    expect(readFileSync(join(folder.path, 'summary.md'), 'utf8')).toBe('# Summary\n');
    // Each step says how long it took and the tokens it used.
    await expectPage(cardSteps.nth(2)).toContainText(/answered · reads only · \d+(\.\d)? m?s · [\d,]+ tokens/);
    // Then the answer was written from the results, and checked against the goal.
    const finish = card.getByRole('list', { name: 'Answer and check' }).getByRole('listitem');
    await expectPage(finish.nth(0)).toContainText('Write the answer from the results');
    await expectPage(finish.nth(0)).toContainText('answered');
    await expectPage(finish.nth(1).getByLabel('Check', { exact: true })).toHaveText('· passed: both notes are surveyed and summarized.');
    // The Plan tab draws the graph stage by stage: the two that ran at once, then the one that needed both.
    const details = page.getByRole('complementary', { name: 'Details' });
    if (!(await details.isVisible())) await page.keyboard.press('Control+j');
    await details.getByRole('tab', { name: 'Plan' }).click();
    const graph = details.getByRole('region', { name: 'Plan graph' });
    await expectPage(graph.getByRole('group', { name: 'Stage 1' })).toContainText('First, 2 at once');
    await expectPage(graph.getByRole('group', { name: 'Stage 1' }).getByRole('listitem')).toHaveCount(2);
    await expectPage(graph.getByRole('group', { name: 'Stage 2' })).toContainText('Check the summary against the survey');
    await workbench.screenshot('plan-graph-done');
  });

  it('a plan whose answer fails its check is replanned once, and the replan says so on its card', async () => {
    const byAsker = new ScriptByAsker();
    const workbench = await open({}, { fallback: byAsker.route });
    const { page, host } = workbench;
    await workbench.configureScriptedModel();
    const created = await host.invoke('session:create', { title: 'Count them' });
    if (!created.ok) throw new Error(created.error.message);
    await page.reload();
    await page.getByRole('button', { name: /^Count them/ }).click();
    const first = {
      goal: 'Count the notes',
      steps: [
        { id: 'a', goal: 'Count in a' },
        { id: 'b', goal: 'Count in b' },
      ],
    };
    const again = {
      goal: 'Count every note',
      steps: [
        { id: 'a', goal: 'Count in a' },
        { id: 'hidden', goal: 'Count the hidden ones' },
      ],
    };
    byAsker.scripts = new Map([
      ['parent', [{ steps: [toolCall('run_plan', first, 'p1')] }, { steps: [toolCall('run_plan', again, 'p2')] }, textTurn('Four notes.')]],
      ['Count in a', [textTurn('One.')]],
      ['Count in b', [textTurn('Two.')]],
      ['Count the hidden ones', [textTurn('One hidden.')]],
      [answerGoal(first), [textTurn('Three notes.')]],
      [checkGoal(first), [textTurn('FAIL: the hidden notes were not counted.')]],
      [answerGoal(again), [textTurn('Four notes, one of them hidden.')]],
      [checkGoal(again), [textTurn('PASS')]],
    ]);
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('How many notes?');
    await box.press('Enter');
    await expectPage(page.getByRole('article', { name: 'Answer' }).last()).toContainText('Four notes.');
    const cards = page.getByRole('region', { name: 'Tool run_plan' });
    await expectPage(cards).toHaveCount(2);
    await expectPage(cards.nth(0).getByLabel('Check', { exact: true })).toHaveText('· failed: the hidden notes were not counted.');
    await expectPage(cards.nth(0).getByRole('note', { name: 'Replan' })).toHaveCount(0);
    await expectPage(cards.nth(1).getByRole('note', { name: 'Replan' })).toHaveText(
      'A replan: the check of the plan before it failed: the hidden notes were not counted.',
    );
    await expectPage(cards.nth(1).getByLabel('Check', { exact: true })).toHaveText('· passed');
    await workbench.screenshot('plan-graph-replan');
  });

  it('sets how many sub-agents work at once, and how deep they may hand work on, in Settings', async () => {
    const workbench = await open();
    const { page, host } = workbench;
    await expectPage(page.getByRole('button', { name: 'Settings' })).toBeVisible();
    await page.keyboard.press('Control+,');
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await dialog.getByRole('searchbox').fill('sub-agents');
    const atOnce = dialog.getByRole('spinbutton', { name: 'Sub-agents at once' });
    await expectPage(atOnce).toHaveValue('2');
    await atOnce.fill('3');
    const depth = dialog.getByRole('spinbutton', { name: 'Sub-agent depth' });
    await depth.fill('0');
    await expectPage
      .poll(async () => {
        const saved = await host.invoke('settings:get', {});
        return saved.ok
          ? [(saved.value as { subAgentConcurrency: number }).subAgentConcurrency, (saved.value as { subAgentDepth: number }).subAgentDepth]
          : null;
      })
      .toEqual([3, 0]);
  });
});
