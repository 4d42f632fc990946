import { describe, expect, it } from 'vitest';
import { addressKey, sameServer, savedServer } from '../../src/shared/server-address';

describe('the same server, however its address is written', () => {
  it('reads a trailing slash, localhost and the scheme’s own port as the same address', () => {
    expect(addressKey('http://127.0.0.1:1234/v1')).toBe('http://127.0.0.1:1234/v1');
    expect(addressKey('http://localhost:1234/v1/')).toBe('http://127.0.0.1:1234/v1');
    expect(addressKey('http://[::1]:1234/v1')).toBe('http://127.0.0.1:1234/v1');
    expect(addressKey('https://API.anthropic.com')).toBe(addressKey('https://api.anthropic.com:443/'));
    expect(addressKey('not an address/')).toBe('not an address');
  });

  it('is the same server only with the same kind, port and path', () => {
    const studio = { kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:1234/v1' } as const;
    expect(sameServer(studio, { kind: 'openai-compatible', baseUrl: 'http://localhost:1234/v1/' })).toBe(true);
    expect(sameServer(studio, { kind: 'ollama', baseUrl: 'http://127.0.0.1:1234/v1' })).toBe(false);
    expect(sameServer(studio, { kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:8080/v1' })).toBe(false);
    expect(sameServer(studio, { kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:1234' })).toBe(false);
  });

  it('finds the endpoint a server found is saved as', () => {
    const saved = [
      { id: 'a', name: 'Ollama', kind: 'ollama', baseUrl: 'http://localhost:11434/' },
      { id: 'b', name: 'Studio', kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:1234/v1' },
    ] as const;
    expect(savedServer(saved, { kind: 'ollama', baseUrl: 'http://127.0.0.1:11434' })?.id).toBe('a');
    expect(savedServer(saved, { kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:8000/v1' })).toBeUndefined();
  });
});
