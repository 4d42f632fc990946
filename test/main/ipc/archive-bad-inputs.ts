import type { archiveChannels } from '../../../src/shared/ipc/archive-channels';

const unknownId = 'does-not-exist';

/** Bad inputs of the archive and audit channels, spread into the table of `channels-bad-input.test.ts`. */
export const archiveBadInputs: Record<keyof typeof archiveChannels, Array<{ input: unknown; code: string }>> = {
  'archive:list': [
    { input: { all: true }, code: 'invalid_input' },
    { input: [], code: 'invalid_input' },
  ],
  'archive:restore': [
    { input: { sessionId: unknownId }, code: 'not_found' },
    // A session in the list is not archived: there is nothing to restore.
    { input: { sessionId: 'SESSION' }, code: 'not_found' },
    { input: { sessionId: '../../etc' }, code: 'invalid_input' },
    { input: { sessionId: 'SESSION', title: 'x' }, code: 'invalid_input' },
  ],
  'archive:delete': [
    { input: { sessionId: unknownId }, code: 'not_found' },
    // Only an archived session is purged by hand; one in the list is archived first.
    { input: { sessionId: 'SESSION' }, code: 'not_found' },
    { input: { sessionId: 42 }, code: 'invalid_input' },
    { input: {}, code: 'invalid_input' },
  ],
  'audit:list': [
    { input: { sessionId: unknownId }, code: 'not_found' },
    { input: { sessionId: 'x'.repeat(65) }, code: 'invalid_input' },
    { input: { sessionId: 'SESSION', format: 'csv' }, code: 'invalid_input' },
  ],
};
