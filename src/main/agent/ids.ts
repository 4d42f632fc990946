import { randomBytes } from 'node:crypto';

let lastTime = 0;
let counter = 0;
/** Random bytes drawn a page at a time: one call into the system per 680 ids instead of one each. */
let pool = Buffer.alloc(0);
let used = 0;

function randomPart(): string {
  if (used + 6 > pool.length) {
    pool = randomBytes(4096);
    used = 0;
  }
  const part = pool.subarray(used, used + 6).toString('base64url');
  used += 6;
  return part.replace(/[-_]/g, '0');
}

/**
 * Time-sortable ids: 10 base-36 characters of milliseconds, a 4-character counter for ids made in
 * the same millisecond, then random characters. Sorting ids as strings sorts them by creation.
 */
export function newId(now: number = Date.now()): string {
  if (now === lastTime) counter += 1;
  else {
    lastTime = now;
    counter = 0;
  }
  const time = now.toString(36).padStart(10, '0');
  const sequence = counter.toString(36).padStart(4, '0');
  return `${time}${sequence}${randomPart()}`;
}
