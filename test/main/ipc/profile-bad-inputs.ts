import type { profileChannels } from '../../../src/shared/ipc/profile-channels';

const unknownId = 'does-not-exist';
const settings = { name: 'Mine', instructions: 'Be brief.' };

/** Bad inputs of the profile channels, spread into the table of `channels-bad-input.test.ts`. */
export const profileBadInputs: Record<keyof typeof profileChannels, Array<{ input: unknown; code: string }>> = {
  'profile:list': [
    { input: {}, code: 'invalid_input' },
    { input: { workspacePath: 3 }, code: 'invalid_input' },
  ],
  'profile:versions': [
    { input: { profileId: unknownId }, code: 'not_found' },
    { input: { profileId: '' }, code: 'invalid_input' },
  ],
  'profile:save': [
    { input: { scope: 'global', workspacePath: null, settings: { ...settings, name: '  ' } }, code: 'invalid_input' },
    { input: { scope: 'global', workspacePath: null, settings: { ...settings, instructions: '' } }, code: 'invalid_input' },
    { input: { scope: 'global', workspacePath: null, settings: { ...settings, temperature: 3 } }, code: 'invalid_input' },
    { input: { scope: 'global', workspacePath: null, settings: { ...settings, toolGroupsOff: ['everything'] } }, code: 'invalid_input' },
    { input: { scope: 'global', workspacePath: null, settings: { ...settings, colour: 'red' } }, code: 'invalid_input' },
    { input: { scope: 'workspace', workspacePath: null, settings }, code: 'invalid_input' },
    { input: { profileId: 'builtin:code', scope: 'global', workspacePath: null, settings }, code: 'invalid_input' },
    { input: { profileId: unknownId, scope: 'global', workspacePath: null, settings }, code: 'not_found' },
  ],
  'profile:delete': [
    { input: { profileId: unknownId }, code: 'not_found' },
    { input: { profileId: 'builtin:ask' }, code: 'invalid_input' },
    { input: { profileId: 'builtin:code' }, code: 'invalid_state' },
  ],
  'profile:export': [
    { input: { profileId: unknownId }, code: 'not_found' },
    { input: { profileId: 'builtin:code', version: 7 }, code: 'not_found' },
    { input: { profileId: 'builtin:code', version: 0 }, code: 'invalid_input' },
  ],
  'profile:import': [
    { input: { document: 'not json', scope: 'global', workspacePath: null }, code: 'invalid_input' },
    {
      input: {
        document: JSON.stringify({ format: 'agent-workbench-profile', schemaVersion: 99, profile: settings }),
        scope: 'global',
        workspacePath: null,
      },
      code: 'invalid_input',
    },
    {
      input: {
        document: JSON.stringify({ format: 'agent-workbench-profile', schemaVersion: 1, profile: { ...settings, plugins: [] } }),
        scope: 'global',
        workspacePath: null,
      },
      code: 'invalid_input',
    },
    {
      input: { document: JSON.stringify({ format: 'other', schemaVersion: 1 }), scope: 'global', workspacePath: null },
      code: 'invalid_input',
    },
    { input: { document: 'x'.repeat(200_001), scope: 'global', workspacePath: null }, code: 'invalid_input' },
  ],
  'session:profile': [
    { input: { sessionId: unknownId }, code: 'not_found' },
    { input: {}, code: 'invalid_input' },
  ],
  'session:setProfile': [
    { input: { sessionId: 'SESSION', profileId: unknownId }, code: 'not_found' },
    { input: { sessionId: unknownId, profileId: 'builtin:ask' }, code: 'not_found' },
    { input: { sessionId: 'SESSION', profileId: 'builtin:ask', toolGroupsOff: ['files'] }, code: 'invalid_input' },
  ],
};
