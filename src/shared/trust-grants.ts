/*
 * Trust grants: the answers an approval gate offers, how long a timed answer trusts, the escalations a call may ask for,
 * and what a grant covers.
 */

import { z } from 'zod';
import { idSchema } from './input-limits';
import { riskLevelSchema } from './risk';

/** The answers an approval gate offers. Timed and session answers create trust grants. */
export const approvalDecisionSchema = z.enum(['deny', 'allow_once', 'allow_5m', 'allow_30m', 'allow_1h', 'allow_5h', 'allow_session']);
export type ApprovalDecision = z.infer<typeof approvalDecisionSchema>;

/** How long each timed answer trusts, in milliseconds. */
export const grantDurationsMs: Readonly<Record<'allow_5m' | 'allow_30m' | 'allow_1h' | 'allow_5h', number>> = {
  allow_5m: 5 * 60_000,
  allow_30m: 30 * 60_000,
  allow_1h: 60 * 60_000,
  allow_5h: 5 * 60 * 60_000,
};

/**
 * What a call asks for beyond what its tool may do by default: a command run with the network, or outside the OS sandbox.
 * Ordered by reach: `no_sandbox` includes everything `network` allows.
 */
export const escalationKindSchema = z.enum(['network', 'no_sandbox']);
export type EscalationKind = z.infer<typeof escalationKindSchema>;

/** An escalation a call asks for, and why it matters, as the gate shows it. */
export const escalationSchema = z.object({ kind: escalationKindSchema, reason: z.string() });
export type Escalation = z.infer<typeof escalationSchema>;

/** Whether a grant made for `granted` (none when absent) reaches as far as `asked`: the network never covers no sandbox. */
export function escalationCovers(granted: EscalationKind | undefined, asked: EscalationKind | undefined): boolean {
  const reach = (kind: EscalationKind | undefined): number => (kind === undefined ? 0 : escalationKindSchema.options.indexOf(kind) + 1);
  return reach(granted) >= reach(asked);
}

/**
 * What a trust grant covers: these exact arguments, a pattern derived from them that cannot widen, or (chosen by the
 * person at the gate) the same tool on any path in a folder of the workspace that holds the approved call's path: `folder`
 * is relative, ends with `/`, or is empty for the whole workspace.
 */
export const grantPatternSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('exact'), arguments: z.string() }),
  z.object({ kind: z.literal('command_prefix'), words: z.array(z.string()).min(1) }),
  z.object({
    kind: z.literal('path_prefix'),
    folder: z
      .string()
      .max(4096)
      .refine((folder) => folder === '' || (folder.endsWith('/') && !folder.startsWith('/') && !folder.split('/').includes('..')), {
        message: 'a folder of the workspace, relative, ending with /',
      }),
  }),
]);
export type GrantPattern = z.infer<typeof grantPatternSchema>;

export const trustGrantSchema = z.object({
  id: idSchema,
  tool: z.string(),
  pattern: grantPatternSchema,
  workspacePath: z.string().nullable(),
  maxRisk: riskLevelSchema,
  /** Set for "this session" grants, which cover that session only. */
  sessionId: idSchema.nullable(),
  createdAt: z.number().int(),
  /** Null for session grants: they last as long as the session. */
  expiresAt: z.number().int().nullable(),
  revokedAt: z.number().int().nullable(),
  description: z.string(),
  /**
   * The escalation the person trusted explicitly at an escalation gate ("trust network access for this command"); absent
   * for a grant made at an ordinary gate, which never covers a call that asks for one.
   */
  escalation: escalationKindSchema.optional(),
});
export type TrustGrant = z.infer<typeof trustGrantSchema>;
