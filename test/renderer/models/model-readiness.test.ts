import { describe, expect, it } from 'vitest';
import type { Session, Settings } from '../../../src/shared/domain';
import type { ProviderView } from '../../../src/shared/ipc/contract';
import { listsModel, sendBlock } from '../../../src/renderer/src/models/model-readiness';
import type { AppState, EndpointState } from '../../../src/renderer/src/store';

const ollama: ProviderView = { id: 'p-ollama', kind: 'ollama', name: 'Ollama (local)', baseUrl: 'http://127.0.0.1:11434', hasKey: false };
const claude: ProviderView = { id: 'p-claude', kind: 'anthropic', name: 'Anthropic', baseUrl: 'https://api.anthropic.com', hasKey: true };

function stateWith(
  model: Session['model'],
  endpoints: Record<string, EndpointState>,
  defaultModel: Settings['defaultModel'] = null,
): AppState {
  const session: Session = {
    id: 's1',
    title: 'New session',
    workspacePath: null,
    model,
    autonomy: 'L1',
    status: 'idle',
    createdAt: 0,
    updatedAt: 0,
  };
  return {
    info: null,
    loadError: null,
    sessions: [session],
    selectedId: 's1',
    views: {},
    branchPoints: {},
    partial: {},
    providers: [ollama, claude],
    // Only the default model is read here.
    settings: { defaultModel } as Settings,
    grants: [],
    checks: [],
    endpoints,
    notice: null,
    drafts: {},
    restoreRequest: null,
    changesRequest: null,
    mentions: {},
    freshRestores: {},
    sessionList: { query: '', folded: [] },
    folderTrust: null,
    updates: null,
    filesChanged: {},
  };
}

const listing = (...ids: string[]): EndpointState => ({ state: 'ok', models: ids.map((id) => ({ id })) });

describe('why Send is off', () => {
  it('is on for a model the endpoint lists, Ollama’s :latest either way round', () => {
    expect(sendBlock(stateWith({ providerId: ollama.id, model: 'qwen3' }, { [ollama.id]: listing('qwen3:latest') }), 's1')).toBeNull();
    expect(listsModel([{ id: 'llama3' }], 'llama3:latest')).toBe(true);
    expect(listsModel([{ id: 'llama3:8b' }], 'llama3')).toBe(false);
  });

  it('names the endpoint and the reason: unreachable, no model picked, a model it lacks, none at all', () => {
    const unreachable = { [ollama.id]: { state: 'unreachable', message: 'Nothing is listening at http://127.0.0.1:11434.' } as const };
    expect(sendBlock(stateWith({ providerId: ollama.id, model: '' }, unreachable), 's1')).toBe(
      'Ollama (local) cannot be reached. Nothing is listening at http://127.0.0.1:11434.',
    );
    expect(sendBlock(stateWith({ providerId: ollama.id, model: '' }, { [ollama.id]: listing('a') }), 's1')).toBe(
      'Pick a model of Ollama (local) to send.',
    );
    expect(sendBlock(stateWith({ providerId: ollama.id, model: 'b' }, { [ollama.id]: listing('a') }), 's1')).toBe(
      'Ollama (local) has no model “b”: pick one it lists.',
    );
    expect(sendBlock(stateWith({ providerId: ollama.id, model: 'b' }, { [ollama.id]: listing() }), 's1')).toContain('ollama pull');
    expect(sendBlock(stateWith({ providerId: 'gone', model: 'b' }, {}), 's1')).toBe(
      'This session’s endpoint was removed: pick another to send.',
    );
    expect(sendBlock(stateWith(null, {}), 's1')).toBe('Pick an endpoint and a model to send.');
  });

  it('runs on the default model when the session has none, and trusts Anthropic’s aliases', () => {
    expect(sendBlock(stateWith(null, { [ollama.id]: listing('a') }, { providerId: ollama.id, model: 'a' }), 's1')).toBeNull();
    expect(
      sendBlock(
        stateWith({ providerId: claude.id, model: 'claude-sonnet-4-5' }, { [claude.id]: listing('claude-sonnet-4-5-20250929') }),
        's1',
      ),
    ).toBeNull();
  });

  it('does not wait for an endpoint still being asked', () => {
    expect(sendBlock(stateWith({ providerId: ollama.id, model: 'a' }, { [ollama.id]: { state: 'checking' } }), 's1')).toBeNull();
  });
});
