/*
 * The hash that chains checkpoints, so a damaged one is found.
 */
import { createHash } from 'node:crypto';

/**
 * The integrity hash of a checkpoint row: its parent's hash, its place and its content, so a
 * change to any row of a chain shows at that row.
 */
export function checkpointHash(parentHash: string, seq: number, appended: string, state: string | null, metadata: string): string {
  return createHash('sha256')
    .update(parentHash)
    .update('\u0000')
    .update(String(seq))
    .update('\u0000')
    .update(appended)
    .update('\u0000')
    .update(state ?? '')
    .update('\u0000')
    .update(metadata)
    .digest('base64url');
}
