/*
 * The IPC handlers of turns: sending and stopping, the person's answers at gates, trust grants, and the tools and
 * their output.
 */

import { NotFoundError } from '../../shared/errors';
import type { Clock } from '../agent/ports/clock';
import type { AccountingStore } from '../agent/ports/accounting';
import type { SessionStore } from '../agent/ports/stores';
import type { Tool, ToolRegistry } from '../agent/ports/tools';
import type { TrustStore } from '../agent/ports/trust';
import type { SessionRuntime } from '../agent/session/session-runtime';
import type { ProviderRegistry } from '../providers/provider-registry';
import { readAttachments } from '../workspace/attachments';
import type { Handlers } from './router';

type RunChannel =
  | 'run:send'
  | 'run:cancel'
  | 'run:clearQueue'
  | 'approval:answer'
  | 'plan:answer'
  | 'budget:answer'
  | 'review:answer'
  | 'trust:list'
  | 'trust:revoke'
  | 'tool:list'
  | 'tool:output';

export interface RunHandlerDependencies {
  readonly store: SessionStore;
  readonly runtime: SessionRuntime;
  readonly providers: ProviderRegistry;
  readonly trust: TrustStore;
  readonly accounting: AccountingStore;
  readonly tools: ToolRegistry;
  readonly clock: Clock;
  /** Announces the active grants after one was created or revoked. */
  readonly onTrustChanged: () => void;
}

/** The handlers of turns: sending and stopping, the person's answers at gates, trust grants, and the tools and their output. */
export function runHandlers(deps: RunHandlerDependencies): Pick<Handlers, RunChannel> {
  const { store, runtime, providers, trust, accounting, clock } = deps;
  return {
    'run:send': async (input) => {
      const before = store.get(input.sessionId);
      if (!before) throw new NotFoundError('Session', input.sessionId);
      // Every file is read and checked before anything is written: a refused one sends nothing.
      const attachments = await readAttachments(input.attachments ?? [], {
        workspacePath: before.workspacePath,
        takesImages: async () => {
          const choice = before.model ?? providers.defaultModel();
          if (!choice || choice.model === '') return { takes: false, model: 'No model is chosen, and so none' };
          return { takes: await providers.takesImages(choice, AbortSignal.timeout(10_000)), model: choice.model };
        },
      });
      const started = runtime.send(input.sessionId, input.text, attachments);
      runtime.sessions.nameAfter(input.sessionId, input.text);
      return started;
    },
    'run:cancel': async (input) => {
      if (!store.get(input.sessionId)) throw new NotFoundError('Session', input.sessionId);
      return { cancelled: await runtime.cancel(input.sessionId) };
    },
    'run:clearQueue': (input) => ({ cleared: runtime.clearQueue(input.sessionId) }),

    'approval:answer': (input) => {
      runtime.answerApproval(input.approvalId, input.decision, input.reason, {
        trustEscalation: input.trustEscalation === true,
        ...(input.folder === undefined ? {} : { folder: input.folder }),
        ...(input.content === undefined ? {} : { content: input.content }),
      });
      return { accepted: true as const };
    },
    'plan:answer': (input) => {
      runtime.answerPlan(input.planId, input.answer, input.text);
      return { accepted: true as const };
    },
    'budget:answer': (input) => {
      runtime.answerBudget(input.gateId, input.answer);
      return { accepted: true as const };
    },
    'review:answer': (input) => {
      runtime.answerReview(input.reviewId, input.decision);
      return { accepted: true as const };
    },
    'trust:list': () => trust.listActive(clock.now()),
    'trust:revoke': (input) => {
      const grant = trust.revoke(input.grantId, clock.now());
      deps.onTrustChanged();
      return grant;
    },
    // Every session's tools, then each trusted folder's own (its MCP servers'): any of them can be denied by its name.
    'tool:list': () => {
      const info = (tool: Tool) => ({ name: tool.name, description: tool.description, server: tool.group ?? null, risk: tool.baseRisk });
      const everywhere = deps.tools.list().map(info);
      const folders = deps.tools.byFolder().flatMap(({ folder, tools }) => tools.map((tool) => ({ ...info(tool), folder })));
      return [...everywhere, ...folders];
    },
    'tool:output': (input) => {
      const found = accounting.toolOutput(input.toolCallId);
      if (!found) throw new NotFoundError('Tool call', input.toolCallId);
      return found;
    },
  };
}
