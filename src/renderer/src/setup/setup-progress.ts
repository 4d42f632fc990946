/*
 * Where the person is in the model setup, so the window keeps it shown from their first step in it to its end.
 */

import { useState } from 'react';
import type { ChosenModel } from './model-setup';

/** How the setup tells the window where it is: worked in (kept shown), a model chosen (the folder step), finished. */
export interface SetupProgress {
  /** The person did something in the setup: it stays until they finish, even once a model works meanwhile. */
  readonly onEngage: () => void;
  readonly onChosen: (chosen: ChosenModel) => void;
  readonly onDone: () => void;
}

/**
 * Where the person is in the setup, for the window. The setup stays from their first step in it to its end, even once
 * a model works meanwhile (a check saves an endpoint); at its folder step it holds the model chosen. Null: not in it.
 */
export function useSetupProgress(): { setup: { chosen: ChosenModel | null } | null; progress: SetupProgress } {
  const [setup, setSetup] = useState<{ chosen: ChosenModel | null } | null>(null);
  return {
    setup,
    progress: {
      onEngage: () => setSetup((current) => current ?? { chosen: null }),
      onChosen: (chosen) => setSetup({ chosen }),
      onDone: () => setSetup(null),
    },
  };
}
