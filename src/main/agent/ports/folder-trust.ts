/*
 * The interface of folder trust: whether the person trusts a workspace folder's authors.
 */
import type { FolderTrustState } from '../../../shared/folder-trust';

/** The person's trust in folders, as decided at the trust prompt and in Settings. */
export interface FolderTrustSource {
  /** What is known of a folder now; a folder no decision covers is untrusted and undecided. */
  stateOf(workspacePath: string): FolderTrustState;
  /** Whether the person let the model have this instruction file (its absolute path) with this content, signs and all. */
  isReleased(path: string, sha256: string): boolean;
}

/** Whether a session in this folder runs restricted: a folder not trusted (none: no folder, nothing of one to trust). */
export const isRestricted = (trust: FolderTrustSource | undefined, workspacePath: string | null): boolean =>
  trust !== undefined && workspacePath !== null && !trust.stateOf(workspacePath).trusted;
