/*
 * Risk of a tool call, lowest first, and the autonomy levels that say how much the agent may do without asking.
 */

import { z } from 'zod';

/** Risk of a tool call, lowest first (design section 3). */
export const riskLevelSchema = z.enum(['read_only', 'write_low', 'write_high', 'destructive']);
export type RiskLevel = z.infer<typeof riskLevelSchema>;
export const riskOrder: readonly RiskLevel[] = riskLevelSchema.options;
export const riskRank = (level: RiskLevel): number => riskOrder.indexOf(level);
export const maxRisk = (levels: readonly RiskLevel[]): RiskLevel =>
  levels.reduce<RiskLevel>((top, level) => (riskRank(level) > riskRank(top) ? level : top), 'read_only');

/** How much the agent may do without asking: L0 observe .. L3 supervised. */
export const autonomySchema = z.enum(['L0', 'L1', 'L2', 'L3']);
export type Autonomy = z.infer<typeof autonomySchema>;
