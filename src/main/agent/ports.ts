import type { ModelChoice, ProviderKind, Session } from '../../shared/domain';
import type { JournalEntry } from '../../shared/events';
import type { ModelProvider } from './model-provider';

/** Finds the provider for a model choice (endpoint settings and key). Throws a typed error when it cannot. */
export interface ProviderResolver {
  resolve(choice: ModelChoice): ModelProvider;
  /** The endpoint behind a choice, for pricing and accounting. */
  describe(choice: ModelChoice): { kind: ProviderKind; baseUrl: string };
  /** The model used when a session has none chosen. */
  defaultModel(): ModelChoice | null;
}

/** Checks a folder the person chose as a workspace. Throws `InvalidInputError` when it is not one. */
export interface WorkspaceInspector {
  resolveFolder(path: string): Promise<string>;
}

/** Where the runtime announces what happened, after it is journalled. */
export interface RuntimeListener {
  onEntries(sessionId: string, entries: readonly JournalEntry[]): void;
  onSessionChanged(change: { session: Session } | { deletedSessionId: string }): void;
}
