import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Conf from 'conf';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultSettings } from '../../../src/shared/domain';
import { EncryptedFileSecretStore, type SecretCipher } from '../../../src/main/secrets/encrypted-file-secret-store';
import { ConfSettingsStore } from '../../../src/main/settings/conf-settings-store';
import { temporaryFolder } from '../../helpers';
import { memoryKeyCipher } from '../../host/test-cipher';

describe('ConfSettingsStore', () => {
  let folder: ReturnType<typeof temporaryFolder>;
  const open = () =>
    new ConfSettingsStore(
      new Conf<Record<string, unknown>>({ cwd: folder.path, projectName: 'agent-workbench', defaults: { ...defaultSettings } }),
    );
  beforeEach(() => {
    folder = temporaryFolder();
  });
  afterEach(() => folder.remove());

  it('keeps saved settings across a reopen', () => {
    open().set({
      ...defaultSettings,
      theme: 'dark',
      providers: [{ id: 'p1', kind: 'openai-compatible', name: 'Ollama', baseUrl: 'http://127.0.0.1:11434/v1' }],
    });
    expect(open().get()).toMatchObject({ theme: 'dark', providers: [{ id: 'p1', name: 'Ollama' }] });
  });

  it('refuses invalid settings and keeps the file as it was', () => {
    const store = open();
    store.set({ ...defaultSettings, theme: 'light' });
    const before = readFileSync(join(folder.path, 'config.json'), 'utf8');
    expect(() => store.set({ ...defaultSettings, theme: 'neon' as 'light' })).toThrow(/not saved/);
    expect(readFileSync(join(folder.path, 'config.json'), 'utf8')).toBe(before);
    expect(store.get().theme).toBe('light');
  });

  it('opens a file saved before the command limits existed with the default limits, and fills in a limit left out', () => {
    const { commandLimits: _, ...older } = defaultSettings;
    writeFileSync(join(folder.path, 'config.json'), JSON.stringify({ ...older, theme: 'dark' }));
    expect(open().get()).toMatchObject({
      theme: 'dark',
      commandLimits: { memoryMb: 4096, processes: 1024, cpuSeconds: 14_400, outputMb: 100 },
    });
    writeFileSync(join(folder.path, 'config.json'), JSON.stringify({ ...older, commandLimits: { memoryMb: 8192 } }));
    const store = open();
    expect(store.problem).toBeNull();
    expect(store.get().commandLimits).toEqual({ memoryMb: 8192, processes: 1024, cpuSeconds: 14_400, outputMb: 100 });
  });

  it('starts from defaults, with a note, when the file was edited into something invalid', () => {
    writeFileSync(join(folder.path, 'config.json'), JSON.stringify({ version: 1, providers: 'lots', theme: 'dark' }));
    const store = open();
    expect(store.get()).toEqual(defaultSettings);
    expect(store.problem).toContain('not valid');
  });
});

describe('EncryptedFileSecretStore', () => {
  let folder: ReturnType<typeof temporaryFolder>;
  beforeEach(() => {
    folder = temporaryFolder();
  });
  afterEach(() => folder.remove());

  it('stores keys encrypted: the file never holds the key in clear', () => {
    const cipher = memoryKeyCipher();
    const path = join(folder.path, 'secrets.json');
    new EncryptedFileSecretStore(path, cipher).set('provider:a:apiKey', 'sk-ant-very-secret-value');
    expect(readFileSync(path, 'utf8')).not.toContain('very-secret');
    expect(new EncryptedFileSecretStore(path, cipher).get('provider:a:apiKey')).toBe('sk-ant-very-secret-value');
  });

  it('refuses to save a key when the system offers no encryption', () => {
    const none: SecretCipher = { isAvailable: () => false, encrypt: () => Buffer.alloc(0), decrypt: () => '' };
    const store = new EncryptedFileSecretStore(join(folder.path, 'secrets.json'), none);
    expect(() => store.set('k', 'v')).toThrow(expect.objectContaining({ code: 'secret_storage_unavailable' }));
    expect(store.encrypted).toBe(false);
  });

  it('deletes a key', () => {
    const store = new EncryptedFileSecretStore(join(folder.path, 'secrets.json'), memoryKeyCipher());
    store.set('k', 'v');
    store.delete('k');
    expect(store.get('k')).toBeNull();
  });
});
