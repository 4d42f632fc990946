/*
 * The IPC handlers of updates: each hands its work to the update service, which checks the policy before any write.
 */

import type { UpdateService } from '../updates/update-service';
import type { Handlers } from './router';

type UpdateChannel = 'updates:get' | 'updates:set' | 'updates:check' | 'updates:download' | 'updates:install';

export function updateHandlers(updates: UpdateService): Pick<Handlers, UpdateChannel> {
  return {
    'updates:get': () => updates.view(),
    'updates:set': (input) => updates.set(input),
    // Asked for by the person: a feed that cannot be reached is said plainly.
    'updates:check': () => updates.check(true),
    'updates:download': () => updates.download(),
    'updates:install': () => updates.install(),
  };
}
