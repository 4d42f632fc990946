import { describe, expect, it } from 'vitest';
import { counted } from '../../src/shared/counts';

describe('counts in words', () => {
  it('says one thing in the singular and any other count in the plural', () => {
    expect(counted(1, 'model')).toBe('1 model');
    expect(counted(0, 'model')).toBe('0 models');
    expect(counted(2, 'model')).toBe('2 models');
    expect(counted(1_024, 'line')).toBe('1,024 lines');
    expect(counted(3, 'match', 'matches')).toBe('3 matches');
    expect(counted(1, 'match', 'matches')).toBe('1 match');
  });
});
