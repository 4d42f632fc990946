/*
 * The gate docked above the message box: the call waiting for approval, a budget reached, or the first result held for
 * review.
 */

import { useAppState, type AppStore } from '../store';
import { ApprovalGate } from './ApprovalGate';
import { BudgetGatePanel } from './BudgetGate';
import { ResultReviewGate } from './ResultReview';

/** The call waiting at its gate, a budget reached, or the first result held for review, docked above the message box. */
export function Gate({ store, sessionId }: { store: AppStore; sessionId: string }) {
  const approval = useAppState(store, (state) => state.views[sessionId]?.pendingApproval ?? null);
  const review = useAppState(store, (state) => state.views[sessionId]?.pendingReviews[0] ?? null);
  const budget = useAppState(store, (state) => state.views[sessionId]?.pendingBudget ?? null);
  if (approval) return <ApprovalGate key={approval.approvalId} store={store} approval={approval} />;
  if (budget) return <BudgetGatePanel key={budget.gateId} store={store} gate={budget} />;
  return review ? <ResultReviewGate key={review.reviewId} store={store} review={review} /> : null;
}
