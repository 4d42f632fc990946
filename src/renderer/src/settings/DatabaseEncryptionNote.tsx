/*
 * Whether the database is encrypted at rest, said plainly in Settings → Data.
 */

import type { AppInfo } from '../../../shared/ipc/contract';
import { settingField } from './SettingsSection';

/** "Encrypted at rest…", or, marked in bold, "not encrypted: this system offers no keychain". */
export function DatabaseEncryptionNote({ info }: { info: AppInfo | null }) {
  const encryption = info?.databaseEncryption;
  if (!encryption) return null;
  const field = settingField('data')('Database encryption', encryption.description);
  return (
    <p className="small" aria-label="Database encryption" {...field}>
      {encryption.encrypted ? encryption.description : <strong>{encryption.description}</strong>}
    </p>
  );
}
