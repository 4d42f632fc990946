import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface Finding {
  readonly rule: string;
  readonly impact: string;
  readonly help: string;
  readonly targets: string[];
}

/**
 * What axe-core finds serious or critical on the page as it is now: in the whole document (dialogs and popovers
 * included), or only in the element `within` selects.
 */
export async function seriousFindings(page: Page, within?: string): Promise<Finding[]> {
  // Evaluated through the browser's protocol, as a page script could not be under the app's content policy.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  return page.evaluate(async (selector) => {
    const axe = (
      window as unknown as {
        axe: {
          run: (
            context: Document | Element,
            options: object,
          ) => Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }> }>;
        };
      }
    ).axe;
    const context = selector === null ? document : document.querySelector(selector);
    if (!context) throw new Error(`Nothing on the page matches ${selector ?? ''} to be checked.`);
    const result = await axe.run(context, { resultTypes: ['violations'] });
    return result.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map((violation) => ({
        rule: violation.id,
        impact: violation.impact ?? '',
        help: violation.help,
        targets: violation.nodes.slice(0, 5).map((node) => node.target.map(String).join(' ')),
      }));
  }, within ?? null);
}
