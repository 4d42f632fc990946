/*
 * The IPC channels that read and update the settings, spread into the contract.
 */

import { z } from 'zod';
import { archiveRetentionSchema } from '../retention';
import { budgetSettingsChangeSchema, modelCallsBudgetSchema } from '../budgets';
import {
  autonomySchema,
  codeMapShareSchema,
  commandLimitsChangeSchema,
  contextWindowOverrideSchema,
  gateTimeoutSchema,
  modelChoiceSchema,
  modelPriceSchema,
  modelSettingSchema,
  settingsSchema,
} from '../domain';
import { heldToolGroupsSchema } from '../guardrails';
import { checkCommandSchema, checkedLanguageSchema, diagnosticsSettingsSchema } from '../diagnostics';

/** The prices of models as an update sets them all: one price per model of an endpoint. */
const modelPricesSchema = z
  .array(modelPriceSchema.strict())
  .max(200)
  .refine(
    (prices) => new Set(prices.map((price) => JSON.stringify([price.providerId, price.model]))).size === prices.length,
    'A model has one price: the list names one twice.',
  );

/** The settings' channels, spread into the contract (`channels`): every field of an update is optional and checked. */
export const settingsChannels = {
  'settings:get': { input: z.object({}).strict(), output: settingsSchema },
  /** The check commands a session's workspace suggests (its package.json, Makefile, project files, instruction files). */
  'check:suggest': {
    input: z.object({ sessionId: z.string().min(1).max(100) }).strict(),
    output: z.array(z.object({ command: z.string(), from: z.string() })),
  },
  /** Chooses the check command of a session's workspace, and whether it runs after each turn; null: none. */
  'check:set': {
    input: z
      .object({ sessionId: z.string().min(1).max(100), command: checkCommandSchema.shape.command.nullable(), afterTurn: z.boolean() })
      .strict(),
    output: settingsSchema,
  },
  /** Lets a language's server run in a session's workspace (its code runs when it checks), or takes that back. */
  'diagnostics:allow': {
    input: z.object({ sessionId: z.string().min(1).max(100), language: checkedLanguageSchema, allow: z.boolean() }).strict(),
    output: settingsSchema,
  },
  'settings:update': {
    input: z
      .object({
        defaultModel: modelChoiceSchema.strict().nullable().optional(),
        defaultAutonomy: autonomySchema.optional(),
        planThreshold: z.number().int().min(2).max(50).optional(),
        maxIterations: modelCallsBudgetSchema.optional(),
        budgets: budgetSettingsChangeSchema.optional(),
        deniedTools: z.array(z.string().min(1).max(200)).max(200).optional(),
        heldToolGroups: heldToolGroupsSchema.optional(),
        theme: settingsSchema.shape.theme.optional(),
        commandPriority: z.enum(['lower', 'normal']).optional(),
        commandLimits: commandLimitsChangeSchema.optional(),
        contextWindows: z.array(contextWindowOverrideSchema.strict()).max(200).optional(),
        modelPrices: modelPricesSchema.optional(),
        compactAt: z.number().min(0.3).max(0.95).optional(),
        answerTokens: z.number().int().min(256).max(128_000).optional(),
        codeMapShare: codeMapShareSchema.optional(),
        // One part at a time: what is left out stays as it is (an allowance given meanwhile at a tool card is kept).
        diagnostics: diagnosticsSettingsSchema.partial().strict().optional(),
        modelSettings: z.array(modelSettingSchema.strict()).max(200).optional(),
        archiveRetentionDays: archiveRetentionSchema.optional(),
        defaultProfileId: z.string().min(1).max(100).optional(),
        subAgentConcurrency: settingsSchema.shape.subAgentConcurrency.unwrap().optional(),
        subAgentDepth: settingsSchema.shape.subAgentDepth.unwrap().optional(),
        gateTimeout: gateTimeoutSchema.extend({ seconds: gateTimeoutSchema.shape.seconds.strict() }).strict().optional(),
      })
      .strict(),
    output: settingsSchema,
  },
} as const satisfies Record<string, { input: z.ZodType; output: z.ZodType }>;
