import { describe, expect, it } from 'vitest';
import { codeMapsKept } from '../../../src/main/core/core-tools';
import type { DatabaseKeyKeeper } from '../../../src/main/store/database-key';

const keeper = (read: () => Buffer | null): DatabaseKeyKeeper => ({
  keeping: () => ({ available: true }),
  read,
  create: () => Buffer.alloc(32, 1),
});

/* Where the code indexes are kept: never written plain beside an encrypted database. */
describe('how the code indexes are kept', () => {
  it('sealed beside an encrypted database, as JSON beside a plain one, and only in memory when the key cannot be read again', () => {
    const sealed = codeMapsKept(true, { databaseKeys: keeper(() => Buffer.alloc(32, 2)) });
    expect(sealed.onDisk && sealed.seal?.isSealed(sealed.seal.seal(Buffer.from('index')))).toBe(true);
    expect(codeMapsKept(false, { databaseKeys: keeper(() => Buffer.alloc(32, 2)) })).toEqual({ onDisk: true, seal: null });
    const unreadable = keeper(() => {
      throw new Error('the keychain is locked');
    });
    expect(codeMapsKept(true, { databaseKeys: unreadable })).toEqual({ onDisk: false });
    expect(codeMapsKept(true, { databaseKeys: keeper(() => null) })).toEqual({ onDisk: false });
    expect(codeMapsKept(true, {})).toEqual({ onDisk: false });
  });
});
