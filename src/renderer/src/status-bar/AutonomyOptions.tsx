/*
 * The four autonomy levels in words, as every autonomy picker offers them.
 */

import type { Autonomy } from '../../../shared/domain';

/** What each autonomy level lets run, as the pickers name it. */
export const autonomyLabels: Readonly<Record<Autonomy, string>> = {
  L0: 'L0 observe: ask for everything',
  L1: 'L1 recommend: reads run, writes ask',
  L2: 'L2 assisted: small writes run',
  L3: 'L3 supervised: all but destructive run',
};

/** The four autonomy levels, as every picker offers them. */
export function AutonomyOptions() {
  return (
    <>
      {(Object.keys(autonomyLabels) as Autonomy[]).map((level) => (
        <option key={level} value={level}>
          {autonomyLabels[level]}
        </option>
      ))}
    </>
  );
}
