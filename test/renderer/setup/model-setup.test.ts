import { describe, expect, it } from 'vitest';
import type { DiscoveryResult } from '../../../src/shared/ipc/contract';
import {
  modelsShown,
  modelsShownAtFirst,
  nextLookTimeout,
  readyLine,
  secondTryTimeoutMs,
  unansweredServers,
  windowWords,
} from '../../../src/renderer/src/setup/model-setup';

const models = (count: number) => Array.from({ length: count }, (_, index) => ({ id: `model-${index + 1}` }));

const result = (missed: DiscoveryResult['missed'], found: DiscoveryResult['found'] = []): DiscoveryResult => ({
  found,
  missed,
  timeoutMs: 800,
});

describe('the model setup', () => {
  it('lists every model of a short list, and one past the limit too rather than hiding a single one', () => {
    expect(modelsShown(models(3), false)).toEqual({ shown: models(3), hidden: 0 });
    expect(modelsShown(models(modelsShownAtFirst + 1), false).hidden).toBe(0);
  });

  it('shows the first models of a long list and counts the rest until all are asked for', () => {
    const long = models(20);
    expect(modelsShown(long, false)).toEqual({ shown: long.slice(0, modelsShownAtFirst), hidden: 20 - modelsShownAtFirst });
    expect(modelsShown(long, true)).toEqual({ shown: long, hidden: 0 });
  });

  it('gives an install guide for a server that is not running and none for one that is there but slow or failing', () => {
    const { guides, troubled } = unansweredServers(
      result(
        [
          { name: 'Ollama', kind: 'ollama', baseUrl: 'http://127.0.0.1:11434', reason: 'not_running', message: 'Nothing is listening' },
          { name: 'LM Studio', kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:1234/v1', reason: 'slow', message: 'slow' },
          { name: 'vLLM', kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:8000/v1', reason: 'failed', message: 'failed (500)' },
        ],
        [{ name: 'llama.cpp server', kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:8080/v1', models: [] }],
      ),
    );
    expect(guides.map((guide) => guide.name)).toEqual(['Ollama']);
    expect(troubled.map((missed) => missed.name)).toEqual(['LM Studio', 'vLLM']);
  });

  it('waits longer on the next look only after a server was slow', () => {
    expect(nextLookTimeout(null)).toBeUndefined();
    expect(nextLookTimeout(result([]))).toBeUndefined();
    const slow = result([{ name: 'vLLM', kind: 'openai-compatible', baseUrl: 'http://x/v1', reason: 'slow', message: 'slow' }]);
    expect(nextLookTimeout(slow)).toBe(secondTryTimeoutMs);
    expect(nextLookTimeout({ ...slow, timeoutMs: 4_000 })).toBe(8_000);
  });

  it('ends on one line that says the model, its server and the folder, or that there are no tools without a folder', () => {
    expect(readyLine('qwen3:8b', 'Ollama', '/home/ada/project')).toBe('Ready: qwen3:8b on Ollama, in /home/ada/project.');
    expect(readyLine('qwen3:8b', 'Ollama', null)).toMatch(/^Ready: qwen3:8b on Ollama, with no folder: .*cannot read or run anything/);
  });

  it('says a window in thousands of tokens when the server gives one', () => {
    expect(windowWords({ id: 'a', contextLength: 16384 })).toBe('16k window');
    expect(windowWords({ id: 'a' })).toBeNull();
  });
});
