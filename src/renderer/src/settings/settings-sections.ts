/*
 * The sections of Settings, in the order the dialog shows them and its list of sections names them.
 */

/** Each section: the id its element and its entry in the list share, and its title. */
export const settingsSections = [
  { id: 'endpoints', title: 'Model endpoints' },
  { id: 'local-models', title: 'Models on this computer' },
  { id: 'context', title: 'Context window' },
  { id: 'prices', title: 'Model prices' },
  { id: 'thinking', title: 'Extended thinking' },
  { id: 'behaviour', title: 'Behaviour' },
  { id: 'trust', title: 'Trust grants' },
  { id: 'folders', title: 'Trusted folders' },
  { id: 'profiles', title: 'Agent profiles' },
  { id: 'budgets', title: 'Budgets' },
  { id: 'tools', title: 'Tools' },
  { id: 'checks', title: 'Checks after edits' },
  { id: 'mcp', title: 'MCP servers' },
  { id: 'guardrails', title: 'Prompt injection' },
  { id: 'sandbox', title: 'Sandbox' },
  { id: 'command-limits', title: 'Command limits' },
  { id: 'updates', title: 'Updates' },
  { id: 'trash', title: 'Trash' },
  { id: 'archive', title: 'Archived sessions' },
  { id: 'data', title: 'Data' },
] as const;

/** A section of Settings. */
export type SettingsSectionId = (typeof settingsSections)[number]['id'];

/** The title of a section. */
export function sectionTitle(id: SettingsSectionId): string {
  return settingsSections.find((section) => section.id === id)?.title ?? id;
}

/** The id of a section's element in the page. */
export const sectionElementId = (id: SettingsSectionId): string => `settings-section-${id}`;
