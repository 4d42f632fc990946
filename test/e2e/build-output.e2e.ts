import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const out = join(import.meta.dirname, '../../out');

describe('the built app', () => {
  it('has a preload that needs nothing but Electron, as a sandboxed preload must', () => {
    const preload = readFileSync(join(out, 'preload/index.cjs'), 'utf8');
    const required = [...preload.matchAll(/require\(["']([^"']+)["']\)/g)].map((match) => match[1]);
    expect(new Set(required)).toEqual(new Set(['electron']));
    expect(preload).toContain('exposeInMainWorld');
  });

  it('has a renderer page with no inline script and a strict CSP', () => {
    const html = readFileSync(join(out, 'renderer/index.html'), 'utf8');
    for (const script of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
      expect(script[1]).toMatch(/\bsrc=/);
      expect(script[2]?.trim()).toBe('');
    }
    expect(html).toContain("default-src 'none'");
    expect(html).toContain("script-src 'self'");
    // Scripts never run inline; only styles may be set inline (the terminal sets its own).
    expect(html).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(html).toMatch(/default-src 'none'/);
  });

  it('has a main bundle that loads the renderer from the app protocol, never a remote URL', () => {
    const main = readFileSync(join(out, 'main/index.js'), 'utf8');
    expect(main).toContain('app://workbench');
    expect(main).not.toMatch(/loadURL\(\s*["']https?:/);
    expect(readdirSync(join(out, 'main'))).toContain('index.js');
  });
});
