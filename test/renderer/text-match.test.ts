import { describe, expect, it } from 'vitest';
import { foldText, matchesWords, queryWords } from '../../src/renderer/src/text-match';

describe('matching what is typed in a search box', () => {
  it('reads a query as words, folded to lower case without accents', () => {
    expect(queryWords('  Command   LIMITS ')).toEqual(['command', 'limits']);
    expect(queryWords('Café')).toEqual(['cafe']);
    expect(queryWords('   ')).toEqual([]);
    expect(foldText('Behaviour\tand\nmore')).toBe('behaviour and more');
  });

  it('finds a text holding every word, in any of the texts given, and anything with no words', () => {
    expect(matchesWords(queryWords('budget'), 'Budgets', 'Model calls per turn')).toBe(true);
    expect(matchesWords(queryWords('model budgets'), 'Budgets', 'Model calls per turn')).toBe(true);
    expect(matchesWords(queryWords('model theme'), 'Budgets', 'Model calls per turn')).toBe(false);
    expect(matchesWords(queryWords('cafe'), 'Le Café')).toBe(true);
    expect(matchesWords([], 'anything')).toBe(true);
    expect(matchesWords(queryWords('x'), null, undefined, '')).toBe(false);
  });

  it('never finds a word across the end of one text and the start of the next', () => {
    expect(matchesWords(queryWords('ab'), 'a', 'b')).toBe(false);
  });
});
