/*
 * The core's language servers (`coreDiagnostics`): the checks of the files the app's tools change, and the listener
 * that stops a server once no session works in its folder.
 */

import { toDisposable, type DisposableStore } from '../../shared/lifecycle';
import type { RuntimeListener } from '../agent/ports/ports';
import type { SessionStore } from '../agent/ports/stores';
import { Diagnostics } from '../diagnostics/diagnostics';
import type { SandboxStatus } from '../tools/sandbox';
import { WorkspaceFiles } from '../workspace/workspace-files';
import type { CoreOptions } from './core-options';

export interface DiagnosticsParts {
  readonly options: CoreOptions;
  /** Holds the language servers until the core closes. */
  readonly owned: DisposableStore;
  readonly sandbox: SandboxStatus | undefined;
  readonly restricted: (workspacePath: string) => boolean;
  readonly store: SessionStore;
}

/** The checks of changed files, and the core's listener, which stops the language servers of folders no session works in. */
export function coreDiagnostics({ options, owned, sandbox, restricted, store }: DiagnosticsParts): {
  diagnostics: Diagnostics | null;
  listener: RuntimeListener;
} {
  // The checks of changed files go with the app's own tools: the language servers read the files those tools change.
  const diagnostics = options.builtinTools
    ? new Diagnostics({
        settings: () => options.settings.get().diagnostics,
        filesOf: (path) => new WorkspaceFiles(path, { protectedRoots: [options.dataDir] }),
        ...(sandbox ? { sandbox } : {}),
        ...(options.languageServerEnvironment ? { env: options.languageServerEnvironment } : {}),
        restricted,
      })
    : null;
  if (diagnostics) owned.add(toDisposable(() => diagnostics.dispose()));
  // A language server runs while a session works in its folder: one whose last session was deleted or moved to
  // another folder is stopped.
  const listener: RuntimeListener = diagnostics
    ? {
        ...options.listener,
        onSessionChanged: (change) => {
          options.listener.onSessionChanged(change);
          if (diagnostics.running > 0) diagnostics.keepOnly(store.list().flatMap((session) => session.workspacePath ?? []));
        },
      }
    : options.listener;
  return { diagnostics, listener };
}
