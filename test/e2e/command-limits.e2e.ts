import { expect as expectPage } from 'playwright/test';
import { describe, it } from 'vitest';
import { useWorkbenches } from './fixture';

describe('command limits in the settings', () => {
  const open = useWorkbenches();

  it('shows the defaults, refuses a value out of bounds, saves the limits, and shows them again after a reload', async () => {
    const workbench = await open();
    const { page, host } = workbench;
    const stored = async () => {
      const settings = await host.invoke('settings:get', {});
      return settings.ok ? (settings.value as { commandLimits: unknown }).commandLimits : null;
    };
    await page.getByRole('button', { name: 'Settings' }).click();
    const section = page.getByRole('region', { name: 'Command limits' });
    const memory = section.getByLabel('Memory per process');
    const cpu = section.getByLabel('CPU time per process');
    await expectPage(memory).toHaveValue('4096');
    await expectPage(section.getByLabel('Processes and threads at once, in the sandbox')).toHaveValue('1024');
    await expectPage(cpu).toHaveValue('240');
    await expectPage(section.getByLabel('Output of a command')).toHaveValue('100');
    const save = section.getByRole('button', { name: 'Save limits' });
    await expectPage(save).toBeDisabled();

    await memory.fill('100');
    await expectPage(section.getByRole('alert')).toHaveText('From 256 to 1,048,576 MB.');
    await save.scrollIntoViewIfNeeded();
    await workbench.screenshot('settings-command-limits-invalid');
    await expectPage(memory).toHaveAttribute('aria-invalid', 'true');
    await expectPage(save).toBeDisabled();
    await memory.fill('8192');
    await cpu.fill('90');
    await expectPage(section.getByRole('alert')).toHaveCount(0);
    await workbench.screenshot('settings-command-limits');
    await save.click();
    await expectPage.poll(stored).toEqual({ memoryMb: 8192, processes: 1024, cpuSeconds: 5400, outputMb: 100 });
    await expectPage(save).toBeDisabled();

    await page.reload();
    await page.getByRole('button', { name: 'Settings' }).click();
    await expectPage(memory).toHaveValue('8192');
    await expectPage(cpu).toHaveValue('90');
    await section.getByRole('button', { name: 'Use the defaults' }).click();
    await expectPage(memory).toHaveValue('4096');
    await expectPage.poll(stored).toEqual({ memoryMb: 4096, processes: 1024, cpuSeconds: 14_400, outputMb: 100 });
  });
});
