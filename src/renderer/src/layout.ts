/*
 * The window's remembered layout: the widths of the side panels, which of them are open, and the details panel's tab.
 */

import { useCallback, useState } from 'react';
import { z } from 'zod';

/** The panels' sizes and whether they are open: remembered across restarts of the app. */
const layoutSchema = z.object({
  leftWidth: z.number().min(160).max(640),
  rightWidth: z.number().min(220).max(800),
  leftOpen: z.boolean(),
  rightOpen: z.boolean(),
  rightTab: z.enum(['plan', 'tools', 'changes', 'history', 'memory']),
  filesOpen: z.boolean(),
});
/** The panels' sizes, whether each is open, and the tab shown on the right. */
export type Layout = z.infer<typeof layoutSchema>;
/** A tab of the details panel. */
export type RightTab = Layout['rightTab'];

/** The layout of a first run, and of one whose saved layout cannot be read. */
export const defaultLayout: Layout = {
  leftWidth: 260,
  rightWidth: 340,
  leftOpen: true,
  rightOpen: true,
  rightTab: 'plan',
  filesOpen: true,
};
const key = 'agent-workbench.layout';

function load(): Layout {
  try {
    const parsed = layoutSchema.safeParse({ ...defaultLayout, ...(JSON.parse(localStorage.getItem(key) ?? '{}') as object) });
    return parsed.success ? parsed.data : defaultLayout;
  } catch {
    return defaultLayout;
  }
}

/** The layout, saved on each change and read back at the next start; a change out of bounds is ignored. */
export function usePersistentLayout(): [Layout, (change: Partial<Layout>) => void] {
  const [layout, setLayout] = useState<Layout>(load);
  const update = useCallback((change: Partial<Layout>) => {
    setLayout((current) => {
      const parsed = layoutSchema.safeParse({ ...current, ...change });
      if (!parsed.success) return current;
      try {
        localStorage.setItem(key, JSON.stringify(parsed.data));
      } catch {
        // Storage may be full or unavailable; the layout still applies for this window.
      }
      return parsed.data;
    });
  }, []);
  return [layout, update];
}
