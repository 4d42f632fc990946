import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { knownArchitectures } from '../../../src/main/models/gguf-architectures';
import { readGgufHeader } from '../../../src/main/models/gguf-reader';
import { temporaryFolder } from '../../helpers';
import { ggufBytes, ggufPieces } from './gguf-bytes';

describe('reading a GGUF header', () => {
  const folders: Array<{ path: string; remove: () => void }> = [];
  afterEach(() => folders.splice(0).forEach((folder) => folder.remove()));
  const file = (name: string, bytes: Buffer | string): string => {
    const folder = temporaryFolder('gguf-');
    folders.push(folder);
    const path = join(folder.path, name);
    writeFileSync(path, bytes);
    return path;
  };

  it('reads the architecture, name, window and quantization of a valid file', async () => {
    const header = await readGgufHeader(file('tiny.gguf', ggufBytes()));
    expect(header).toMatchObject({
      version: 3,
      architecture: 'llama',
      name: 'Tiny Test',
      contextLength: 4096,
      quantization: 'Q4_K_M',
      tensorCount: 2,
    });
    expect(header.dataEnd).toBe(header.fileSize);
  });

  it('says a file cut short is truncated', async () => {
    const whole = ggufBytes();
    await expect(readGgufHeader(file('cut.gguf', whole.subarray(0, whole.length - 40)))).rejects.toMatchObject({
      code: 'model_file_invalid',
      message: expect.stringMatching(/^cut\.gguf is truncated: its tensors need/) as unknown,
    });
    await expect(readGgufHeader(file('cut-header.gguf', whole.subarray(0, 30)))).rejects.toMatchObject({
      code: 'model_file_invalid',
      message: expect.stringContaining('is truncated') as unknown,
    });
  });

  it('says a file of another format is not a GGUF file, and a web page is a web page', async () => {
    await expect(readGgufHeader(file('model.bin', Buffer.from('PK\u0003\u0004 some zip bytes')))).rejects.toMatchObject({
      code: 'model_file_invalid',
      message: 'model.bin is not a GGUF model file (the format the built-in runtime loads).',
    });
    await expect(readGgufHeader(file('page.gguf', '<!DOCTYPE html><html><body>Sign in</body></html>'))).rejects.toMatchObject({
      message: 'page.gguf is a web page, not a model file.',
    });
  });

  it('refuses an architecture the runtime cannot run, naming it', async () => {
    const bytes = ggufBytes({ metadata: { 'general.architecture': 'whisper', 'general.name': 'Other' } });
    await expect(readGgufHeader(file('whisper.gguf', bytes))).rejects.toMatchObject({
      code: 'model_file_invalid',
      message: 'whisper.gguf is a model of the “whisper” architecture, which the built-in runtime cannot run.',
    });
  });

  it('refuses an old GGUF version', async () => {
    await expect(readGgufHeader(file('old.gguf', ggufBytes({ version: 1 })))).rejects.toMatchObject({
      message: expect.stringContaining('GGUF version 1') as unknown,
    });
  });

  it('refuses absurd metadata sizes without allocating them', async () => {
    const { u32, u64, text } = ggufPieces;
    const huge = (count: bigint): Buffer => Buffer.concat([Buffer.from('GGUF'), u32(3), u64(0), u64(count)]);
    await expect(readGgufHeader(file('kv.gguf', huge(1n << 40n)))).rejects.toMatchObject({
      message: expect.stringContaining('damaged header') as unknown,
    });
    // A string claiming 2^62 bytes, and an array claiming 2^40 strings.
    const longString = Buffer.concat([Buffer.from('GGUF'), u32(3), u64(0), u64(1), text('general.name'), u32(8), u64(1n << 62n)]);
    await expect(readGgufHeader(file('string.gguf', longString))).rejects.toMatchObject({ code: 'model_file_invalid' });
    const bigArray = Buffer.concat([Buffer.from('GGUF'), u32(3), u64(0), u64(1), text('tokens'), u32(9), u32(8), u64(1n << 40n)]);
    await expect(readGgufHeader(file('array.gguf', bigArray))).rejects.toMatchObject({ code: 'model_file_invalid' });
    const hugeKey = Buffer.concat([Buffer.from('GGUF'), u32(3), u64(0), u64(1), u64(1n << 50n)]);
    await expect(readGgufHeader(file('key.gguf', hugeKey))).rejects.toMatchObject({
      message: expect.stringContaining('damaged header') as unknown,
    });
  });

  it('knows every architecture the bundled node-llama-cpp knows', async () => {
    // `GgufArchitectureType` is a const enum in its typings; its JavaScript is an object of names.
    const module = (await import('node-llama-cpp')) as unknown as { GgufArchitectureType: Record<string, string> };
    const theirs = Object.values(module.GgufArchitectureType).filter((name) => name !== 'clip' && name !== '(unknown)');
    expect(theirs.filter((name) => !knownArchitectures.has(name))).toEqual([]);
  });
});
