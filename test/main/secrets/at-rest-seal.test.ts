import { describe, expect, it } from 'vitest';
import { atRestSeal } from '../../../src/main/secrets/at-rest-seal';

/* Files kept outside the database, sealed with a key derived from the database's: unreadable without it, changes found. */
describe('a file sealed at rest', () => {
  const key = Buffer.alloc(32, 7);

  it('opens with the same key and purpose, differs on every write, and holds nothing of its text', () => {
    const seal = atRestSeal(key, 'code map');
    const plain = Buffer.from('export function secretPlan() {}');
    const once = seal.seal(plain);
    const twice = seal.seal(plain);
    expect(once.equals(twice)).toBe(false);
    expect(once.includes('secretPlan')).toBe(false);
    expect(seal.open(once).toString()).toBe('export function secretPlan() {}');
    expect(atRestSeal(key, 'code map').open(twice).equals(plain)).toBe(true);
  });

  it('refuses a changed file, another key, another purpose, a plain file and a short key, with a typed error', () => {
    const sealed = atRestSeal(key, 'code map').seal(Buffer.from('the index'));
    const changed = Buffer.from(sealed);
    changed[changed.length - 1] = (changed[changed.length - 1] ?? 0) ^ 1;
    for (const [seal, bytes] of [
      [atRestSeal(key, 'code map'), changed],
      [atRestSeal(Buffer.alloc(32, 8), 'code map'), sealed],
      [atRestSeal(key, 'trash'), sealed],
    ] as const) {
      expect(() => seal.open(bytes)).toThrow(
        expect.objectContaining({ code: 'invalid_state', message: expect.stringContaining('does not open') }),
      );
    }
    expect(() => atRestSeal(key, 'code map').open(Buffer.from('{"version":1}'))).toThrow(
      expect.objectContaining({ code: 'invalid_state' }),
    );
    expect(atRestSeal(key, 'code map').isSealed(Buffer.from('{"version":1}'))).toBe(false);
    expect(() => atRestSeal(Buffer.alloc(16), 'code map')).toThrow(expect.objectContaining({ code: 'invalid_input' }));
  });

  it('names a file about a path by the key: the same name each time, another under another key or purpose, and not the path', () => {
    const seal = atRestSeal(key, 'code map');
    const name = seal.nameOf('/home/someone/secret-project');
    expect(name).toMatch(/^[0-9a-f]{24}$/);
    expect(seal.nameOf('/home/someone/secret-project')).toBe(name);
    expect(atRestSeal(Buffer.alloc(32, 8), 'code map').nameOf('/home/someone/secret-project')).not.toBe(name);
    expect(atRestSeal(key, 'trash').nameOf('/home/someone/secret-project')).not.toBe(name);
    expect(seal.nameOf('/home/someone/other-project')).not.toBe(name);
  });
});
