import { expect as expectPage } from 'playwright/test';
import { describe, expect, it } from 'vitest';
import type { Settings } from '../../src/shared/domain';
import { useWorkbenches } from './fixture';

describe('the model doctor in the workbench', () => {
  const open = useWorkbenches();

  it('checks a new endpoint’s models, shows each as a card with its fixes, in Settings and beside the model picker', async () => {
    const workbench = await open({}, { textOnly: true, probes: { reasoning: 'inline' } });
    const { page, host } = workbench;
    const providerId = await workbench.configureScriptedModel();

    await page.getByRole('button', { name: 'Settings' }).click();
    const checks = page.getByRole('list', { name: 'Model checks' });
    const entry = checks.getByRole('listitem').filter({ hasText: 'scripted-model' });
    await expectPage(entry).toContainText('text tool calls', { timeout: 15_000 });
    await entry.locator('summary').click();
    const card = entry.getByLabel('What the check of scripted-model found');
    await expectPage(card).toContainText('the server refuses tool definitions');
    await expectPage(card).toContainText('inline, in <think> tags');
    await expectPage(card).toContainText(/\d+(\.\d+)? tokens per second/);
    await expectPage(card.getByRole('list', { name: 'Problems' })).toContainText('--enable-auto-tool-choice');
    await workbench.screenshot('model-doctor-settings');

    await entry.getByRole('button', { name: 'Check again scripted-model' }).click();
    await expectPage(entry.getByRole('button', { name: 'Check again scripted-model' })).toBeEnabled();
    await entry.getByLabel('Tool calls of scripted-model').selectOption('native');
    await expectPage
      .poll(async () => {
        const settings = await host.invoke('settings:get', {});
        return settings.ok ? (settings.value as Settings).modelSettings : [];
      })
      .toEqual([{ providerId, model: 'scripted-model', toolProtocol: 'native', thinkingBudget: null }]);
    await entry.getByLabel('Tool calls of scripted-model').selectOption('auto');
    await page.getByRole('button', { name: 'Close settings' }).click();

    await page.getByRole('button', { name: '+ New session' }).first().click();
    const badge = page.getByRole('button', { name: /^Model check: text tools/ });
    await expectPage(badge).toBeVisible();
    await badge.click();
    const popover = page.getByRole('dialog', { name: 'Check of scripted-model' });
    await expectPage(popover).toContainText('the app uses text tool calls');
    await expectPage(popover).toBeVisible();
    // Nothing covers it: the point at its middle is inside it.
    const onTop = await popover.evaluate((element) => {
      const box = element.getBoundingClientRect();
      return element.contains(document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2));
    });
    expect(onTop).toBe(true);
    await workbench.screenshot('model-doctor-picker');
    expect(workbench.server.requests).toEqual([]);
  });

  it('checks the models of an endpoint added without checks (an Anthropic one) when asked', async () => {
    const workbench = await open();
    const { page, host, server } = workbench;
    const saved = await host.invoke('provider:save', {
      kind: 'anthropic',
      name: 'Claude',
      baseUrl: server.anthropicBaseUrl,
      apiKey: 'sk-test',
    });
    expect(saved.ok).toBe(true);
    await page.reload();
    await page.getByRole('button', { name: 'Settings' }).click();
    const endpoint = page.getByRole('listitem').filter({ hasText: 'Claude' }).first();
    await expectPage(endpoint).toContainText('No model checked yet.');
    expect(server.probes).toEqual([]);
    await endpoint.getByRole('button', { name: 'Check unchecked models' }).click();
    const checks = endpoint.getByRole('list', { name: 'Model checks' });
    await expectPage(checks.getByRole('listitem')).toHaveCount(2, { timeout: 15_000 });
    await expectPage(checks).toContainText('native tool calls');
    await expectPage(endpoint.getByRole('button', { name: 'Check unchecked models' })).toBeEnabled();
  });

  it('says who reported a model’s window in words, keeping the routes read for whoever hovers over them', async () => {
    const workbench = await open({}, { personality: 'llama.cpp', contextWindow: 8192 });
    const { page } = workbench;
    await workbench.configureScriptedModel();
    await page.getByRole('button', { name: 'Settings' }).click();
    const entry = page.getByRole('list', { name: 'Model checks' }).getByRole('listitem').filter({ hasText: 'scripted-model' });
    await expectPage(entry).toContainText('native tool calls', { timeout: 15_000 });
    await entry.locator('summary').click();
    const card = entry.getByLabel('What the check of scripted-model found');
    await expectPage(card).toContainText('loaded 8,192 tokens');
    await expectPage(card).toContainText('(reported by llama.cpp)');
    await expectPage(card).not.toContainText('n_ctx_train');
    await expectPage(card).not.toContainText('/props');
    await expectPage(card.getByText('(reported by llama.cpp)')).toHaveAttribute('title', /llama\.cpp \/props/);
  });
});
