/*
 * The gate of a tool result held as a possible prompt injection: its signs, its text, and whether the model may see
 * it.
 */

import type { InjectionSign, InjectionSignKind } from '../../../shared/guardrails';
import type { ViewInjection, ViewReview } from '../../../shared/session-view';
import { useAltKeys } from './alt-keys';
import type { AppStore } from '../store';

const kindLabels: Record<InjectionSignKind, string> = {
  instructions_to_model: 'Instructions to the model',
  exfiltration: 'Sending data away',
  ignore_person: 'Ignoring you',
  hidden_text: 'Hidden text',
  encoded_payload: 'Encoded text',
};

/** The signs found in a result: what kind, where, why, and the text that carries it. */
export function InjectionSigns({ signs }: { signs: readonly InjectionSign[] }) {
  return (
    <ul className="injection-signs small" aria-label="Injection signs">
      {signs.map((sign, index) => (
        <li key={`${sign.offset}-${index}`}>
          <strong>{kindLabels[sign.kind]}</strong> <span className="muted">(line {sign.line})</span>: {sign.explanation}
          <code className="injection-excerpt">{sign.excerpt}</code>
        </li>
      ))}
    </ul>
  );
}

/** What a tool card says of a flagged result. */
export function injectionNote(injection: ViewInjection): string {
  const count = injection.signs.length;
  const found = `Possible prompt injection: ${count} sign${count === 1 ? '' : 's'}`;
  switch (injection.review) {
    case 'waiting':
      return `${found}; held for your review, the model has not seen it.`;
    case 'released':
      return `${found}; you let the model see it.`;
    case 'withheld':
      return injection.stopped
        ? `${found}; withheld: the turn was stopped while it was held.`
        : `${found}; you withheld it from the model.`;
    case null:
      return `${found}; the model was given it (this tool group is marked, not held).`;
  }
}

/**
 * A tool result held as a possible prompt injection, docked where approvals are: the signs, the text as the model would
 * get it, and the two answers. Alt+L lets it in, Alt+W withholds it.
 */
export function ResultReviewGate({ store, review }: { store: AppStore; review: ViewReview }) {
  const answer = (decision: 'release' | 'withhold'): void => {
    void store.attempt(() => store.call('review:answer', { reviewId: review.reviewId, decision }));
  };
  useAltKeys({ l: () => answer('release'), w: () => answer('withhold') }, review.reviewId);
  return (
    <section className="gate gate-review" role="region" aria-label="Result held for review" data-region="gate">
      <header className="row">
        <strong>Possible prompt injection in the result of {review.tool}</strong>
        <span className="muted small">The model has not seen it yet.</span>
      </header>
      {review.summary && <p className="gate-summary">{review.summary}</p>}
      <InjectionSigns signs={review.signs} />
      <pre className="tool-output review-output" aria-label="Held result">
        {review.output}
      </pre>
      <div className="row">
        <button type="button" className="primary" aria-keyshortcuts="Alt+W" title="Withhold it (Alt+W)" onClick={() => answer('withhold')}>
          Withhold from the model
        </button>
        <button type="button" aria-keyshortcuts="Alt+L" title="Let the model see it (Alt+L)" onClick={() => answer('release')}>
          Let the model see it
        </button>
        <span className="muted small">Withheld, the model is told only that you held the result back.</span>
      </div>
    </section>
  );
}
