/*
 * Time-sortable ids.
 */
import { randomBytes } from 'node:crypto';

let lastTime = 0;
let counter = 0;
/** Random bytes drawn a page at a time: one call into the system per 680 ids instead of one each. */
let pool = Buffer.alloc(0);
let used = 0;

/** Base64url's letters with '-' and '_' read as '0', so an id is letters and digits only. */
const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz012345678900';

/** Eight random characters from six random bytes. */
function randomPart(): string {
  if (used + 6 > pool.length) {
    pool = randomBytes(4096);
    used = 0;
  }
  let part = '';
  for (let group = 0; group < 2; group += 1) {
    const at = used + group * 3;
    const bits = ((pool[at] as number) << 16) | ((pool[at + 1] as number) << 8) | (pool[at + 2] as number);
    part += letters[(bits >> 18) & 63]! + letters[(bits >> 12) & 63]! + letters[(bits >> 6) & 63]! + letters[bits & 63]!;
  }
  used += 6;
  return part;
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
