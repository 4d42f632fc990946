/*
 * The update service as the core builds it: the updater the app or the test host gives (none: a build that does not
 * update itself says so when asked), the policy file's place, and its state told to every window.
 */

import { WorkbenchError } from '../../shared/errors';
import type { Clock } from '../agent/ports/clock';
import type { SettingsStore } from '../agent/ports/settings';
import { systemPolicyPath } from '../updates/update-policy';
import { UpdateService, type Schedule } from '../updates/update-service';
import type { Updater } from '../updates/updater';
import type { EventSender } from '../ipc/router';

/** What the app (or the test host) gives for updates. */
export interface UpdatesOptions {
  readonly updater: Updater;
  /** The organization's policy file: the system's place in the app (see `systemPolicyPath`). */
  readonly policyPath: string;
  readonly schedule?: Schedule;
  readonly startDelayMs?: number;
  readonly log?: (message: string) => void;
}

/** An updater for a build that cannot update itself (the terminal runner, a core built without one). */
const noUpdater: Updater = {
  configure: () => undefined,
  setListener: () => undefined,
  check: () => Promise.reject(new WorkbenchError('invalid_state', 'This build of the app cannot update itself.')),
  download: () => Promise.reject(new WorkbenchError('invalid_state', 'This build of the app cannot update itself.')),
  install: () => {
    throw new WorkbenchError('invalid_state', 'This build of the app cannot update itself.');
  },
};

/** Builds the update service and starts its schedule; the caller owns it (disposing it stops the schedule). */
export function createUpdates(
  core: { readonly updates?: UpdatesOptions; readonly settings: SettingsStore; readonly appVersion: string },
  clock: Clock,
  sender: EventSender,
): UpdateService {
  const options = core.updates;
  const service = new UpdateService({
    updater: options?.updater ?? noUpdater,
    settings: core.settings,
    policyPath: options?.policyPath ?? systemPolicyPath(process.platform, process.env),
    currentVersion: core.appVersion,
    clock,
    onChanged: (view) => sender.send('updates:changed', view),
    ...(options?.schedule ? { schedule: options.schedule } : {}),
    ...(options?.startDelayMs === undefined ? {} : { startDelayMs: options.startDelayMs }),
    ...(options?.log ? { log: options.log } : {}),
  });
  service.start();
  return service;
}
