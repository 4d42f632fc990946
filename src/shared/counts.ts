/* Counts in words, singular for one: "1 model", "2 models". Counts of things the person is shown go through here. */

/**
 * A count with its noun, singular for exactly one: `counted(1, 'model')` is "1 model", `counted(3, 'model')` "3 models",
 * `counted(2, 'match', 'matches')` "2 matches". Large counts are grouped ("1,024 lines").
 */
export function counted(count: number, noun: string, plural = `${noun}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? noun : plural}`;
}
