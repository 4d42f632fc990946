/*
 * The profile form's draft: its fields as typed, made from a profile, and turned into the settings the channel saves.
 */

import type { Autonomy, ModelChoice } from '../../../shared/domain';
import type { Profile, ProfileSettings } from '../../../shared/profiles';
import type { ToolGroup } from '../../../shared/tool-groups';

/** A budget a profile may set for itself. */
export type LimitKey = keyof Profile['limits'];

/** The profile form's fields, kept as typed until saved. */
export interface Draft {
  name: string;
  description: string;
  instructions: string;
  model: ModelChoice | null;
  fallbackModel: ModelChoice | null;
  temperature: string;
  maxAnswerTokens: string;
  autonomy: Autonomy | null;
  toolGroupsOff: ToolGroup[];
  scope: 'global' | 'workspace';
  /** Each budget as typed; empty: the one in Settings. */
  limits: Record<LimitKey, string>;
}

/** Sets one field of the draft. */
export type SetDraftField = <K extends keyof Draft>(key: K, value: Draft[K]) => void;

/** The budgets of a profile, as the form names them. */
export const limitFields: ReadonlyArray<{ key: LimitKey; label: string }> = [
  { key: 'modelCalls', label: 'Model calls a turn' },
  { key: 'toolCalls', label: 'Tool calls a turn' },
  { key: 'wallMinutes', label: 'Minutes a turn' },
  { key: 'sessionTokens', label: 'Tokens a session' },
  { key: 'sessionCostUsd', label: 'Dollars a session' },
];

/** The form for a profile: empty for a new one, its fields for a new version, or a copy of them under a "(copy)" name. */
export function draftOf(profile: Profile | null, copy: boolean): Draft {
  return {
    name: profile ? (copy ? `${profile.name} (copy)` : profile.name) : '',
    description: profile?.description ?? '',
    instructions: profile?.instructions ?? '',
    model: profile?.model ?? null,
    fallbackModel: profile?.fallbackModel ?? null,
    temperature: profile?.temperature === null || profile?.temperature === undefined ? '' : String(profile.temperature),
    maxAnswerTokens: profile?.maxAnswerTokens ? String(profile.maxAnswerTokens) : '',
    autonomy: profile?.autonomy ?? null,
    toolGroupsOff: [...(profile?.toolGroupsOff ?? [])],
    scope: profile?.scope === 'workspace' ? 'workspace' : 'global',
    limits: Object.fromEntries(
      limitFields.map(({ key }) => {
        const value = profile?.limits[key];
        return [key, value === undefined || value === null ? '' : String(value)];
      }),
    ) as Record<LimitKey, string>,
  };
}

/** The draft as the channel takes it; numbers the person left empty are the server's or the app's defaults. */
export function settingsOf(draft: Draft): ProfileSettings {
  return {
    name: draft.name,
    description: draft.description,
    instructions: draft.instructions,
    model: draft.model,
    fallbackModel: draft.fallbackModel,
    temperature: draft.temperature.trim() === '' ? null : Number(draft.temperature),
    maxAnswerTokens: draft.maxAnswerTokens.trim() === '' ? null : Number(draft.maxAnswerTokens),
    autonomy: draft.autonomy,
    toolGroupsOff: draft.toolGroupsOff,
    limits: Object.fromEntries(
      limitFields.filter(({ key }) => draft.limits[key].trim() !== '').map(({ key }) => [key, Number(draft.limits[key])]),
    ),
  };
}
