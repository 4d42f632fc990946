import { expect as expectPage } from 'playwright/test';
import { describe, it } from 'vitest';
import { useWorkbenches } from './fixture';

describe('the workbench on Windows without Git for Windows', () => {
  const open = useWorkbenches();

  it('says in the status bar and in Settings that commands cannot run, and how to get a shell', async () => {
    const reason =
      "Git for Windows' bash was not found, so the agent cannot run commands. Install Git for Windows from https://git-scm.com/download/win, or set WORKBENCH_GIT_BASH_PATH to the bash.exe of an installed Git.";
    const workbench = await open({ commandShell: { available: false, reason } });
    const { page } = workbench;
    const chip = page.getByLabel('Command shell', { exact: true }).first();
    await expectPage(chip).toHaveText('no shell');
    await expectPage(chip).toHaveAttribute('title', reason);
    await page.getByRole('button', { name: 'Settings' }).click();
    const section = page.getByRole('region', { name: 'Sandbox' });
    await expectPage(section.getByLabel('Command shell')).toHaveText(reason);
  });
});
