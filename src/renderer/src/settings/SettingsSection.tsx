/*
 * A section of Settings and the settings in it, marked for the search box: each setting carries the words it is found
 * by (its label, its help and its section's title), which `settings-filter.ts` reads to show or hide it.
 */

import type { ReactNode } from 'react';
import { foldText } from '../text-match';
import { sectionElementId, sectionTitle, type SettingsSectionId } from './settings-sections';

/** What makes an element one setting the search shows or hides, and the words it is found by. */
export interface SettingFieldProps {
  readonly 'data-setting-field': string;
}

/**
 * The props that make an element one setting of `section`, found by its label, its help or the section's title (so
 * searching a section's name shows all of it). What a section shows beside its settings (a form being filled, a
 * message) is not a setting and stays while the section shows.
 */
export function settingField(section: SettingsSectionId): (label: string, help?: string) => SettingFieldProps {
  const title = sectionTitle(section);
  return (label, help) => ({ 'data-setting-field': foldText(`${title} \u0000 ${label} \u0000 ${help ?? ''}`) });
}

/**
 * One section of Settings: a region named by its title, with its description (a setting of its own, so that the
 * search finds a section by what it is for). The search hides a section with nothing found in it, unless its title
 * matches.
 */
export function SettingsSection({ id, description, children }: { id: SettingsSectionId; description?: string; children?: ReactNode }) {
  const title = sectionTitle(id);
  const elementId = sectionElementId(id);
  return (
    <section id={elementId} className="settings-section" aria-labelledby={`${elementId}-title`} data-section-title={foldText(title)}>
      <h3 id={`${elementId}-title`} tabIndex={-1}>
        {title}
      </h3>
      {description !== undefined && (
        <p className="muted small" {...settingField(id)(description)}>
          {description}
        </p>
      )}
      {children}
    </section>
  );
}
