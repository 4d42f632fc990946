/*
 * A gate's time limit counting down: how long is left before it ends unanswered, and what then happens.
 */

import { useState } from 'react';
import type { ViewApproval } from '../../../shared/session-view';
import { useDisposables } from '../disposables';

/** Seconds as the countdown shows them: `4:05`, `1:02:03`. */
export function clockWords(totalSeconds: number): string {
  const seconds = Math.max(0, Math.ceil(totalSeconds));
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = String(seconds % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${rest}` : `${minutes}:${rest}`;
}

/** The time left at a gate with a limit, counted down each second; nothing for a gate that waits until answered. */
export function GateCountdown({
  deadline,
  compact = false,
  plan = false,
}: {
  deadline: ViewApproval['deadline'];
  compact?: boolean;
  /** A plan's gate: a plan is rejected, not denied. */
  plan?: boolean;
}) {
  const [now, setNow] = useState(Date.now());
  useDisposables(
    (disposables) => {
      if (!deadline) return;
      setNow(Date.now());
      disposables.interval(() => setNow(Date.now()), 1000);
    },
    [deadline?.wallAt],
  );
  if (!deadline) return null;
  const left = (deadline.wallAt - now) / 1000;
  const ended = plan ? 'rejected' : 'denied';
  const then = deadline.action === 'stop' ? `${ended} and the turn stops` : ended;
  const text = left > 0 ? `${compact ? '' : 'Without an answer, '}${then} in ${clockWords(left)}` : `No answer in time: ${then}`;
  return (
    <span className="gate-countdown" role="timer" aria-live="off" aria-label={`Gate time limit: ${text}`}>
      {text}
    </span>
  );
}
