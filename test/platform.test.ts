import { describe, expect, it } from 'vitest';
import { capability, macos, macOsHeaders, needs, windows, type Capability } from './platform';

describe('what a test needs from the machine', () => {
  it('runs a test whose needs are all present as written', () => {
    expect(needs(capability('present-need', 'a present need', () => null))).toEqual({});
  });

  it('marks a skip for what the install left out on purpose as declared, and a skip for anything else not', () => {
    const leftOut: Capability = {
      ...capability('left-out-need', 'a need left out', () => 'left out by the install'),
      declared: () => true,
    };
    const lacking = capability('lacking-need', 'a lacking need', () => 'not installed');
    expect(needs(leftOut, lacking)).toEqual({
      skip: true,
      meta: {
        missingCapabilities: [
          { capability: 'left-out-need', reason: 'left out by the install', declared: true },
          { capability: 'lacking-need', reason: 'not installed' },
        ],
      },
    });
  });

  it("declares another system's tests not run here, so strict mode lists them rather than failing them", () => {
    const others = [
      [windows, 'win32'],
      [macos, 'darwin'],
      [macOsHeaders, 'darwin'],
    ] as const;
    for (const [need, system] of others) {
      const meta = needs(need).meta?.missingCapabilities ?? [];
      if (process.platform === system) expect(meta.every((entry) => entry.declared !== true)).toBe(true);
      else expect(meta).toEqual([expect.objectContaining({ capability: need.name, declared: true })]);
    }
  });
});
