/*
 * Figures in words, as the turn summaries, the status bar and the budget gate say them: durations, tokens, dollars,
 * and the calls a cost could not count.
 */

/** A duration: 850 ms, 4.2 s, 42 s, 3 min 5 s, 1 h 12 min. */
export function durationWords(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 10) return `${seconds.toFixed(1)} s`;
  const whole = Math.round(seconds);
  if (whole < 60) return `${whole} s`;
  const minutes = Math.floor(whole / 60);
  if (minutes < 60) return whole % 60 === 0 ? `${minutes} min` : `${minutes} min ${whole % 60} s`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
}

/** A count of tokens with its thousands marked: 12,345. */
export function tokenWords(tokens: number): string {
  return Math.round(tokens).toLocaleString('en-US');
}

/** US dollars, with as many places as a small sum needs: $0.0042, $1.25, and under a hundredth of a cent, < $0.0001. */
export function usdWords(usd: number): string {
  if (usd === 0) return '$0';
  if (usd < 0.0001) return '< $0.0001';
  return usd < 1 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/** "1 call without a price", "3 calls without a price". */
export function unpricedWords(calls: number): string {
  return `${calls} ${calls === 1 ? 'call' : 'calls'} without a price`;
}
