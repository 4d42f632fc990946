/*
 * A session's state in words, as the sidebar and the status bar show it.
 */

import type { SessionStatus } from '../../../shared/domain';

const labels: Record<SessionStatus, string> = {
  idle: 'idle',
  planning: 'thinking',
  executing: 'running',
  waiting_approval: 'waiting for you',
  completed: 'done',
  completed_with_errors: 'done, with errors',
  failed: 'failed',
  cancelled: 'stopped',
  interrupted: 'interrupted',
};

/** A session's state, in words, as the sidebar and the status bar say it. */
export function statusLabel(status: SessionStatus): string {
  return labels[status];
}
