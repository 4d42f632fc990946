import { describe, expect, it } from 'vitest';
import { BoundedMap } from '../../src/shared/bounded-map';

describe('a bounded map', () => {
  it('drops the oldest entry when a new key is set while it is full', () => {
    const map = new BoundedMap<string, number>({ max: 2 });
    map.set('a', 1).set('b', 2).set('c', 3);
    expect([...map]).toEqual([
      ['b', 2],
      ['c', 3],
    ]);
    expect(map.size).toBe(2);
    expect(map.get('a')).toBeUndefined();
  });

  it('drops the entry set longest ago first, however often it was read, unless told to refresh on read', () => {
    const map = new BoundedMap<string, number>({ max: 2 });
    map.set('a', 1).set('b', 2);
    expect(map.get('a')).toBe(1);
    map.set('c', 3);
    expect([...map.keys()]).toEqual(['b', 'c']);
  });

  it('drops the entry read longest ago first when reads refresh', () => {
    const map = new BoundedMap<string, number>({ max: 2, refreshOnRead: true });
    map.set('a', 1).set('b', 2);
    expect(map.get('a')).toBe(1);
    map.set('c', 3);
    expect([...map.keys()]).toEqual(['a', 'c']);
  });

  it('never refreshes an entry by asking whether it is there, nor by reading a key it does not hold', () => {
    const map = new BoundedMap<string, number>({ max: 2, refreshOnRead: true });
    map.set('a', 1).set('b', 2);
    expect(map.has('a')).toBe(true);
    expect(map.get('z')).toBeUndefined();
    map.set('c', 3);
    expect([...map.keys()]).toEqual(['b', 'c']);
  });

  it('makes a key set again the newest, with its new value, and drops nothing for it', () => {
    const evicted: string[] = [];
    const map = new BoundedMap<string, number>({ max: 2, onEvict: (key) => evicted.push(key) });
    map.set('a', 1).set('b', 2).set('a', 10);
    expect([...map]).toEqual([
      ['b', 2],
      ['a', 10],
    ]);
    map.set('c', 3);
    expect([...map.keys()]).toEqual(['a', 'c']);
    expect(evicted).toEqual(['b']);
  });

  it('tells onEvict of each entry dropped to make room, with its key and value, once the new entry is in', () => {
    const seen: Array<{ key: string; value: number; newestIn: boolean }> = [];
    const map: BoundedMap<string, number> = new BoundedMap<string, number>({
      max: 1,
      onEvict: (key, value) => seen.push({ key, value, newestIn: map.has('b') }),
    });
    map.set('a', 1).set('b', 2);
    expect(seen).toEqual([{ key: 'a', value: 1, newestIn: true }]);
  });

  it('does not call onEvict for an entry deleted or cleared by its owner', () => {
    const evicted: string[] = [];
    const map = new BoundedMap<string, number>({ max: 3, onEvict: (key) => evicted.push(key) });
    map.set('a', 1).set('b', 2).set('c', 3);
    expect(map.delete('a')).toBe(true);
    expect(map.delete('a')).toBe(false);
    map.clear();
    expect(map.size).toBe(0);
    expect(evicted).toEqual([]);
  });

  it('lists its values oldest first', () => {
    const map = new BoundedMap<string, number>({ max: 3 });
    map.set('a', 1).set('b', 2).set('c', 3);
    expect([...map.values()]).toEqual([1, 2, 3]);
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('refuses a max of %s', (max) => {
    expect(() => new BoundedMap({ max })).toThrow(RangeError);
  });
});
