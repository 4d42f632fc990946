/*
 * What the terminal runner asks the person at the terminal, or answers in their place: a call's gate and a plan (as
 * `--approve` says), and whether the workspace folder's authors are trusted (as `--trust-folder` says).
 */

import type { Interface } from 'node:readline/promises';
import type { ApprovalDecision, EscalationKind } from '../../shared/domain';
import type { SessionRuntime } from '../agent/session/session-runtime';
import type { FolderTrustStore } from '../workspace/folder-trust-store';

export interface GateAnswersOptions {
  /** `ask`, or the decision every gate is answered with (`--approve`). */
  readonly approveMode: string;
  /** The terminal the person is asked at; null when there is none. */
  readonly questions: Interface | null;
  /** The runtime the answers go to, once the core is made. */
  readonly runtime: () => SessionRuntime | null;
}

/** Answers a call's gate and a plan that waits for approval: asked at the terminal, or as `--approve` says. */
export function gateAnswers({ approveMode, questions, runtime }: GateAnswersOptions): {
  answerApproval: (approvalId: string, what: string, escalation?: EscalationKind) => Promise<void>;
  answerPlan: (planId: string) => Promise<void>;
} {
  const answerApproval = async (approvalId: string, what: string, escalation?: EscalationKind): Promise<void> => {
    let decision: ApprovalDecision = approveMode === 'ask' ? 'deny' : (approveMode as ApprovalDecision);
    // An escalation gate is never answered automatically: without a person to ask, it is denied.
    if (escalation && (approveMode !== 'ask' || !questions)) {
      console.error(`Denied ${what}: it asks for more than the sandbox, and only a person at the terminal can allow that.`);
      runtime()?.answerApproval(approvalId, 'deny', 'Escalation is never approved automatically.');
      return;
    }
    if (escalation && approveMode === 'ask' && questions) {
      const asked = escalation === 'network' ? 'network access' : 'running without the sandbox';
      const reply = (await questions.question(`ESCALATION: ${what} asks for ${asked}. Allow [y] once, or [n] no: `)).trim().toLowerCase();
      runtime()?.answerApproval(approvalId, reply === 'y' ? 'allow_once' : 'deny');
      return;
    }
    if (approveMode === 'ask' && questions) {
      const reply = (await questions.question(`Allow ${what}? [y] once, [n] no, 5m, 30m, 1h, 5h, [s]ession: `)).trim().toLowerCase();
      const map: Record<string, ApprovalDecision> = {
        y: 'allow_once',
        n: 'deny',
        '5m': 'allow_5m',
        '30m': 'allow_30m',
        '1h': 'allow_1h',
        '5h': 'allow_5h',
        s: 'allow_session',
      };
      decision = map[reply] ?? 'deny';
    }
    runtime()?.answerApproval(approvalId, decision);
  };
  const answerPlan = async (planId: string): Promise<void> => {
    let approve = approveMode !== 'deny';
    if (approveMode === 'ask' && questions)
      approve = (await questions.question('Approve the plan? [y/n]: ')).trim().toLowerCase().startsWith('y');
    runtime()?.answerPlan(planId, approve ? 'approve' : 'reject', approve ? undefined : 'Rejected from the terminal.');
  };
  return { answerApproval, answerPlan };
}

/**
 * A folder is trusted before it can steer the agent: said on the command line (`--trust-folder`), asked on a terminal,
 * else restricted, and said so. Nothing to decide when every folder is trusted (`trust` is null).
 */
export async function decideFolderTrust(
  trust: FolderTrustStore | null,
  workspace: string,
  trustFolder: boolean,
  questions: Interface | null,
): Promise<void> {
  if (trust && trustFolder && !trust.stateOf(workspace).trusted) trust.decide(workspace, 'trust');
  else if (trust && !trust.stateOf(workspace).decided && questions) {
    const reply = await questions.question(`Do you trust the authors of ${workspace}? Its instruction files steer the agent. [y/n]: `);
    trust.decide(workspace, reply.trim().toLowerCase().startsWith('y') ? 'trust' : 'restrict');
  }
  if (trust && !trust.stateOf(workspace).trusted)
    console.error(
      `${workspace} is not trusted: restricted mode (its instruction files are not given to the model, autonomy is L1 at most). Pass --trust-folder to trust it.`,
    );
}
