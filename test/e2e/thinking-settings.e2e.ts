import { expect as expectPage } from 'playwright/test';
import { describe, expect, it } from 'vitest';
import type { ModelSetting } from '../../src/shared/domain';
import { useWorkbenches } from './fixture';

describe('extended thinking in Settings', () => {
  const open = useWorkbenches();

  it('turns thinking on for an Anthropic model with a budget: the next turn asks for it, and it is kept over a restart', async () => {
    const workbench = await open();
    const { page, server } = workbench;
    const saved = await workbench.host.invoke('provider:save', {
      kind: 'anthropic',
      name: 'Claude',
      baseUrl: server.anthropicBaseUrl,
      apiKey: 'test-key',
    });
    if (!saved.ok) throw new Error(saved.error.message);
    const providerId = (saved.value as { id: string }).id;
    // Someone chose a tool protocol for the model already: turning thinking on keeps it.
    await workbench.host.invoke('settings:update', {
      defaultModel: { providerId, model: 'scripted-model' },
      modelSettings: [{ providerId, model: 'scripted-model', toolProtocol: 'text', thinkingBudget: null }],
    });
    await page.reload();

    await page.getByRole('button', { name: 'Settings' }).click();
    const section = page.getByRole('region', { name: 'Extended thinking' });
    await expectPage(section.getByLabel('Anthropic endpoint')).toHaveValue(providerId);
    await section.getByLabel('Model that thinks').fill('scripted-model');
    await section.getByLabel('Thinking budget in tokens').fill('4096');
    await section.getByRole('button', { name: 'Turn on thinking' }).click();
    const listed = section.getByRole('list', { name: 'Models that think' });
    await expectPage(listed).toContainText('Claude · scripted-model: thinks with up to 4,096 tokens');
    await workbench.screenshot('settings-thinking-on');

    const stored = async (): Promise<ModelSetting[]> => {
      const settings = await workbench.host.invoke('settings:get', {});
      return settings.ok ? (settings.value as { modelSettings: ModelSetting[] }).modelSettings : [];
    };
    expect(await stored()).toEqual([{ providerId, model: 'scripted-model', toolProtocol: 'text', thinkingBudget: 4096 }]);

    // The next turn asks for thinking with the budget.
    await page.getByRole('button', { name: 'Close settings' }).click();
    server.enqueue({
      steps: [
        { kind: 'reasoning', text: 'A short thought.' },
        { kind: 'text', text: 'Thought it through.' },
      ],
    });
    await page.getByRole('button', { name: '+ New session' }).first().click();
    await page.getByRole('textbox', { name: 'Message' }).fill('Think about it');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await expectPage(page.getByRole('article', { name: 'Answer' })).toContainText('Thought it through.');
    expect(server.requests.at(-1)?.body['thinking']).toEqual({ type: 'enabled', budget_tokens: 4096 });

    // Persisted: after a restart the setting is there and shown.
    await workbench.restart();
    expect(await stored()).toEqual([{ providerId, model: 'scripted-model', toolProtocol: 'text', thinkingBudget: 4096 }]);
    await page.getByRole('button', { name: 'Settings' }).click();
    await expectPage(page.getByRole('list', { name: 'Models that think' })).toContainText('4,096 tokens');

    // Turned off, the model's other choice stays.
    await page.getByRole('button', { name: 'Turn off thinking for scripted-model' }).click();
    await expectPage(page.getByRole('list', { name: 'Models that think' })).toHaveCount(0);
    expect(await stored()).toEqual([{ providerId, model: 'scripted-model', toolProtocol: 'text', thinkingBudget: null }]);
  });
});
