/*
 * The window's remembered layout: the widths of the side panels, which of them are open, and the details panel's tab.
 */

import { useCallback, useState } from 'react';
import { useDisposables } from './disposables';
import { z } from 'zod';

/** The panels' sizes and whether they are open: remembered across restarts of the app. */
const layoutSchema = z.object({
  leftWidth: z.number().min(160).max(640),
  rightWidth: z.number().min(220).max(800),
  leftOpen: z.boolean(),
  rightOpen: z.boolean(),
  rightTab: z.enum(['plan', 'tools', 'changes', 'history', 'memory', 'terminal']),
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

/** The narrowest the conversation is let get by the side panels, and the narrowest each panel goes to make room. */
export const minMainWidth = 560;
const minLeft = 160;
const minRight = 220;

/**
 * The side panels' widths as drawn in a window `windowWidth` wide: as set, unless the conversation would get less than
 * `minMainWidth`; then the details panel narrows first and the sessions panel next, each down to its least. The widths
 * set are kept, for when the window is wider again.
 */
export function fitPanels(layout: Layout, windowWidth: number): { leftWidth: number; rightWidth: number } {
  const left = layout.leftOpen ? layout.leftWidth : 0;
  const right = layout.rightOpen ? layout.rightWidth : 0;
  let over = left + right + minMainWidth - windowWidth;
  if (over <= 0) return { leftWidth: layout.leftWidth, rightWidth: layout.rightWidth };
  const rightWidth = layout.rightOpen ? Math.max(minRight, right - over) : layout.rightWidth;
  if (layout.rightOpen) over -= right - rightWidth;
  const leftWidth = layout.leftOpen && over > 0 ? Math.max(minLeft, left - over) : layout.leftWidth;
  return { leftWidth, rightWidth };
}

/** The window's width, kept current as it resizes. */
export function useWindowWidth(): number {
  const [width, setWidth] = useState(() => window.innerWidth);
  useDisposables((disposables) => {
    disposables.listen(window, 'resize', () => setWidth(window.innerWidth));
  }, []);
  return width;
}

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
