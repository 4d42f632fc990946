import { describe, expect, it } from 'vitest';
import { defaultLayout, fitPanels, minMainWidth } from '../../src/renderer/src/layout';

describe('side panels in a small window', () => {
  it('keeps the widths set while the conversation has its room', () => {
    expect(fitPanels(defaultLayout, 1920)).toEqual({ leftWidth: 260, rightWidth: 340 });
    expect(fitPanels(defaultLayout, 1280)).toEqual({ leftWidth: 260, rightWidth: 340 });
  });

  it('narrows the details panel first, then the sessions panel, so the conversation keeps its least width', () => {
    const fitted = fitPanels(defaultLayout, 1024);
    expect(fitted.rightWidth).toBe(220);
    expect(fitted.leftWidth).toBe(1024 - 220 - minMainWidth);
    expect(1024 - fitted.leftWidth - fitted.rightWidth).toBe(minMainWidth);
  });

  it('narrows only the panels that are open, and never below their least width', () => {
    expect(fitPanels({ ...defaultLayout, rightOpen: false, leftWidth: 600 }, 1024)).toEqual({
      leftWidth: 1024 - minMainWidth,
      rightWidth: 340,
    });
    expect(fitPanels({ ...defaultLayout, leftOpen: false, rightWidth: 800 }, 1024)).toEqual({
      leftWidth: 260,
      rightWidth: 1024 - minMainWidth,
    });
    expect(fitPanels(defaultLayout, 700)).toEqual({ leftWidth: 160, rightWidth: 220 });
  });
});
