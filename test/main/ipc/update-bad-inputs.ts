import type { updateChannels } from '../../../src/shared/ipc/update-channels';

/** Bad inputs of the update channels, spread into the table of `channels-bad-input.test.ts`. */
export const updateBadInputs: Record<keyof typeof updateChannels, Array<{ input: unknown; code: string }>> = {
  'updates:get': [
    { input: { feedUrl: 'https://example.com' }, code: 'invalid_input' },
    { input: 'text', code: 'invalid_input' },
  ],
  'updates:set': [
    { input: { feedUrl: 'http://updates.example.com/feed' }, code: 'invalid_input' },
    { input: { feedUrl: 'ftp://updates.example.com/feed' }, code: 'invalid_input' },
    { input: { feedUrl: 'not a url' }, code: 'invalid_input' },
    { input: { feedUrl: 'https://user:secret@updates.example.com/' }, code: 'invalid_input' },
    { input: { intervalHours: 0 }, code: 'invalid_input' },
    { input: { download: 'sometimes' }, code: 'invalid_input' },
    { input: { enabled: 'yes' }, code: 'invalid_input' },
    { input: { channel: 'beta' }, code: 'invalid_input' },
  ],
  'updates:check': [
    { input: { force: true }, code: 'invalid_input' },
    // Updates are off by default: a check asked for says so and looks nowhere.
    { input: {}, code: 'invalid_state' },
  ],
  'updates:download': [
    { input: { version: '9.9.9' }, code: 'invalid_input' },
    { input: {}, code: 'invalid_state' },
  ],
  'updates:install': [
    { input: { now: true }, code: 'invalid_input' },
    { input: {}, code: 'invalid_state' },
  ],
};
