/*
 * The folding of the status bar: items move into "More" by priority until the bar fits, so nothing is ever cut off.
 */

import { useLayoutEffect, useRef, useState, type ReactNode, type RefObject } from 'react';
import { observeResize, useDisposables } from '../disposables';
import { effectiveModel } from '../models/model-readiness';
import { useAppState, type AppStore } from '../store';

/** How far the status bar folds: 1 hides the name, 2 to 6 move the usage, sandbox, shortcuts, window and grants into "More". */
const maxFold = 6;

/** The bar's folding, as the bar is drawn: how far it is folded, and what went into "More". */
export interface StatusBarFold {
  readonly bar: RefObject<HTMLElement | null>;
  readonly fold: number;
  /** An item of fold level `level`: itself while the bar is folded less than that, else null (it went into `folded`). */
  readonly inBar: (level: number, item: ReactNode) => ReactNode;
  /** What this drawing of the bar folded away, filled by `inBar` as the bar is drawn. */
  readonly folded: ReactNode[];
  /** Whether the "More" list is open (on the top layer: the bar clips what overflows it). */
  readonly moreOpen: boolean;
  readonly setMoreOpen: (open: boolean) => void;
}

/**
 * What the bar holds, as far as it decides what fits (a Stop button, a grant, another session). Counts that tick while
 * a turn streams are not part of this, or the bar would unfold and fold every frame.
 */
function useBarContents(store: AppStore): string {
  const selectedId = useAppState(store, (state) => state.selectedId);
  const status = useAppState(store, (state) => (state.selectedId ? state.views[state.selectedId]?.status : undefined) ?? 'idle');
  const hasContext = useAppState(store, (state) => Boolean(state.selectedId && state.views[state.selectedId]?.context));
  const hasInfo = useAppState(store, (state) => Boolean(state.info));
  const grantCount = useAppState(store, (state) => state.grants.length);
  const problemsShown = useAppState(store, (state) =>
    Boolean(state.selectedId && Object.keys(state.views[state.selectedId]?.problems ?? {}).length > 0),
  );
  const endpointState = useAppState(store, (state) => {
    const providerId = state.selectedId ? effectiveModel(state, state.selectedId)?.providerId : undefined;
    return providerId ? (state.endpoints[providerId]?.state ?? '') : '';
  });
  return `${selectedId}|${status}|${grantCount}|${hasContext ? 1 : 0}|${endpointState}|${hasInfo ? 1 : 0}|${problemsShown ? 1 : 0}`;
}

/**
 * Folds the status bar into "More" by priority until it fits: nothing is ever cut off. What the bar holds, or its
 * width, changing starts over from everything in it. The "More" list closes once nothing is folded.
 */
export function useStatusBarFold(store: AppStore): StatusBarFold {
  const bar = useRef<HTMLElement>(null);
  const [fold, setFold] = useState(0);
  const [, setWidthSeen] = useState(0);
  const [moreOpen, setMoreOpen] = useState(false);
  const contents = useBarContents(store);
  useLayoutEffect(() => {
    setFold(0);
  }, [contents]);
  useLayoutEffect(() => {
    const element = bar.current;
    if (element && fold < maxFold && element.scrollWidth > element.clientWidth + 1) setFold(fold + 1);
  });
  useDisposables((disposables) => {
    const element = bar.current;
    // A new width starts over from everything in the bar, then folds again what does not fit. Only the width counts:
    // folding can change the bar's height, which must not start it over.
    let width = element?.clientWidth ?? 0;
    if (element)
      disposables.add(
        observeResize(element, () => {
          if (element.clientWidth === width) return;
          width = element.clientWidth;
          setFold(0);
          // Measured again even when nothing was folded (a narrower bar from a wide one).
          setWidthSeen(width);
        }),
      );
  }, []);
  useLayoutEffect(() => {
    // Nothing folded: no list to keep open.
    if (fold < 2) setMoreOpen(false);
  }, [fold]);
  const folded: ReactNode[] = [];
  const inBar = (level: number, item: ReactNode): ReactNode => {
    if (fold < level) return item;
    folded.push(item);
    return null;
  };
  return { bar, fold, inBar, folded, moreOpen, setMoreOpen };
}
