import type { localModelChannels } from '../../../src/shared/ipc/local-model-channels';

const unknownId = 'does-not-exist';

/** Bad inputs of the channels of models on this computer, spread into the table of `channels-bad-input.test.ts`. */
export const localModelBadInputs: Record<keyof typeof localModelChannels, Array<{ input: unknown; code: string }>> = {
  'local-model:list': [{ input: { all: true }, code: 'invalid_input' }],
  'local-model:machine': [{ input: [], code: 'invalid_input' }],
  'local-model:catalogue': [{ input: { url: 'http://x' }, code: 'invalid_input' }],
  'local-model:candidates': [{ input: null, code: 'invalid_input' }],
  'local-model:pickFile': [{ input: { path: '/etc/passwd' }, code: 'invalid_input' }],
  'local-model:addFile': [
    // A file that is not a GGUF model: refused with what is wrong, and nothing is added.
    { input: { path: 'FILE' }, code: 'model_file_invalid' },
    { input: { path: '/no/such/model.gguf' }, code: 'model_file_invalid' },
    { input: { path: '/tmp/a\0b.gguf' }, code: 'invalid_input' },
    { input: { path: '' }, code: 'invalid_input' },
    { input: { path: 'models/tiny.gguf' }, code: 'invalid_input' },
    { input: { path: 'x'.repeat(5_000) }, code: 'invalid_input' },
  ],
  'local-model:addCandidate': [
    // Only a model found in Ollama's or LM Studio's folders is added this way.
    { input: { path: 'FILE' }, code: 'not_found' },
    { input: { path: 42 }, code: 'invalid_input' },
  ],
  'local-model:remove': [
    { input: { id: unknownId }, code: 'not_found' },
    { input: { id: '' }, code: 'invalid_input' },
    { input: { id: 'x', path: '/' }, code: 'invalid_input' },
  ],
  'local-model:downloads': [{ input: { id: 'x' }, code: 'invalid_input' }],
  'local-model:download': [
    { input: { id: unknownId }, code: 'not_found' },
    { input: { url: 'http://example.com/model.gguf' }, code: 'invalid_input' },
    { input: { id: 'x'.repeat(101) }, code: 'invalid_input' },
  ],
  'local-model:pause': [{ input: { id: unknownId }, code: 'not_found' }],
  'local-model:resume': [{ input: { id: unknownId }, code: 'not_found' }],
  'local-model:cancel': [
    { input: { id: unknownId }, code: 'not_found' },
    { input: {}, code: 'invalid_input' },
  ],
};
