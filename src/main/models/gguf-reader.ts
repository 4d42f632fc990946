/*
 * Reads and checks a GGUF model file's header: its metadata, its tensor table, and that the file is whole and can be
 * loaded.
 */

import { open, type FileHandle } from 'node:fs/promises';
import { basename } from 'node:path';
import { WorkbenchError } from '../../shared/errors';
import { knownArchitectures } from './gguf-architectures';
import { fileTypeNames, ggmlTypeSizes, lastGgmlType } from './gguf-types';

/** What the header of a GGUF file says, as far as the app needs it. */
export interface GgufHeader {
  readonly version: 2 | 3;
  /** `general.architecture`: "llama", "qwen3", … */
  readonly architecture: string;
  /** `general.name`, when the file has one. */
  readonly name: string | null;
  /** `<architecture>.context_length`: the window it was trained for. */
  readonly contextLength: number | null;
  /** `general.file_type` in words ("Q4_K_M"), when the file says. */
  readonly quantization: string | null;
  /** The figures that size the KV cache, when the file has them. */
  readonly blockCount: number | null;
  readonly headCount: number | null;
  readonly headCountKv: number | null;
  readonly embeddingLength: number | null;
  readonly tensorCount: number;
  /** Where the last tensor's data ends: the length the file must have at least. */
  readonly dataEnd: number;
  readonly fileSize: number;
}

/**
 * Bounds on what a header may claim, so that a damaged or hostile file is refused before it costs anything: nothing is
 * allocated by a size the file gives (strings not kept are skipped, not read), and every length is checked against the
 * file's own size first.
 */
export const ggufLimits = {
  keyBytes: 65_536,
  /** Strings kept (the architecture, the name) are cut to this. */
  keptStringBytes: 1_024,
  kvCount: 1_000_000,
  tensorCount: 1_000_000,
  arrayNesting: 4,
  dimensions: 4,
} as const;

const chunkBytes = 64 * 1024;
const magic = 0x46554747; // "GGUF" read as a little-endian u32.

/** Reads a file forward through a small window; every read past the end is a truncated file. */
class HeaderBytes {
  pos = 0;
  private buffer = Buffer.alloc(chunkBytes);
  private start = 0;
  private length = 0;

  constructor(
    private readonly file: FileHandle,
    readonly size: number,
    private readonly truncated: (offset: number) => WorkbenchError,
  ) {}

  /** Makes `n` bytes (at most a chunk) from `pos` readable at `this.at()`. */
  async need(n: number): Promise<void> {
    if (this.pos + n > this.size) throw this.truncated(this.pos + n);
    if (this.pos >= this.start && this.pos + n <= this.start + this.length) return;
    const { bytesRead } = await this.file.read(this.buffer, 0, chunkBytes, this.pos);
    this.start = this.pos;
    this.length = bytesRead;
    if (bytesRead < n) throw this.truncated(this.pos + n);
  }

  private at(): number {
    return this.pos - this.start;
  }

  skip(n: number): void {
    if (n < 0 || this.pos + n > this.size) throw this.truncated(this.pos + n);
    this.pos += n;
  }

  async u8(): Promise<number> {
    await this.need(1);
    const value = this.buffer.readUInt8(this.at());
    this.pos += 1;
    return value;
  }

  async u32(): Promise<number> {
    await this.need(4);
    const value = this.buffer.readUInt32LE(this.at());
    this.pos += 4;
    return value;
  }

  /** A u64, as a number when it is a safe integer, else Infinity (which every bound refuses). */
  async u64(): Promise<number> {
    await this.need(8);
    const value = this.buffer.readBigUInt64LE(this.at());
    this.pos += 8;
    return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : Infinity;
  }

  async bytes(n: number): Promise<Buffer> {
    if (n > chunkBytes) throw new RangeError('read larger than a chunk');
    await this.need(n);
    const value = Buffer.from(this.buffer.subarray(this.at(), this.at() + n));
    this.pos += n;
    return value;
  }
}

// GGUF value types (ggml's gguf.h `enum gguf_type`), with the size of the fixed-size ones.
const fixedSizes: ReadonlyMap<number, number> = new Map([
  [0, 1], // UINT8
  [1, 1], // INT8
  [2, 2], // UINT16
  [3, 2], // INT16
  [4, 4], // UINT32
  [5, 4], // INT32
  [6, 4], // FLOAT32
  [7, 1], // BOOL
  [10, 8], // UINT64
  [11, 8], // INT64
  [12, 8], // FLOAT64
]);
const stringType = 8;
const arrayType = 9;

type Value = number | string | null;

/**
 * Reads and checks a GGUF file's header: the magic and version, the metadata (keeping what the app uses), the tensor
 * table, and that the file is as long as its tensors say. Throws a `model_file_invalid` error that says what is wrong
 * in words: not a GGUF file, a version this app cannot read, truncated, damaged, or an architecture the runtime cannot
 * run. Reads only the header.
 */
export async function readGgufHeader(path: string): Promise<GgufHeader> {
  const label = basename(path);
  const invalid = (message: string): WorkbenchError => new WorkbenchError('model_file_invalid', message);
  const file = await open(path, 'r').catch((error: unknown) => {
    throw invalid(`${label} cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  });
  try {
    const found = await file.stat();
    if (!found.isFile()) throw invalid(`${label} is a folder or a device, not a GGUF model file.`);
    const size = found.size;
    const truncated = (needed: number): WorkbenchError =>
      invalid(
        `${label} is truncated: it ends at ${size.toLocaleString('en')} bytes where its header needs ${needed.toLocaleString('en')}.`,
      );
    const bytes = new HeaderBytes(file, size, truncated);
    if (size < 4) throw invalid(`${label} is not a GGUF model file: it is ${size} bytes long.`);
    const head = await bytes.bytes(Math.min(16, size));
    if (head.readUInt32LE(0) !== magic) {
      const text = head.toString('latin1').trimStart().toLowerCase();
      throw invalid(
        text.startsWith('<')
          ? `${label} is a web page, not a model file.`
          : `${label} is not a GGUF model file (the format the built-in runtime loads).`,
      );
    }
    bytes.pos = 4;
    const version = await bytes.u32();
    if (version !== 2 && version !== 3)
      throw invalid(`${label} is GGUF version ${version}; the built-in runtime reads versions 2 and 3. Get a newer copy of the model.`);
    const tensorCount = await bytes.u64();
    const kvCount = await bytes.u64();
    if (tensorCount > ggufLimits.tensorCount) throw invalid(`${label} has a damaged header: it claims ${String(tensorCount)} tensors.`);
    if (kvCount > ggufLimits.kvCount) throw invalid(`${label} has a damaged header: it claims ${String(kvCount)} metadata entries.`);

    const kept = new Map<string, Value>();
    const readString = async (keep: boolean): Promise<string | null> => {
      const length = await bytes.u64();
      if (length > size) throw truncated(length);
      if (!keep) {
        bytes.skip(length);
        return null;
      }
      const taken = Math.min(length, ggufLimits.keptStringBytes);
      const text = (await bytes.bytes(taken)).toString('utf8');
      bytes.skip(length - taken);
      return text;
    };
    const readValue = async (type: number, keep: boolean, depth: number): Promise<Value> => {
      const fixed = fixedSizes.get(type);
      if (fixed !== undefined) {
        if (!keep) {
          bytes.skip(fixed);
          return null;
        }
        if (type === 4) return bytes.u32();
        if (type === 10) return bytes.u64();
        bytes.skip(fixed);
        return null;
      }
      if (type === stringType) return readString(keep);
      if (type !== arrayType) throw invalid(`${label} has a damaged header: a value of unknown type ${type}.`);
      if (depth >= ggufLimits.arrayNesting) throw invalid(`${label} has a damaged header: arrays nested too deep.`);
      const itemType = await bytes.u32();
      const count = await bytes.u64();
      const itemSize = fixedSizes.get(itemType);
      if (itemSize !== undefined) {
        if (count * itemSize > size) throw truncated(count * itemSize);
        bytes.skip(count * itemSize);
        return null;
      }
      // Each string or array item takes at least 8 bytes (its length), so a count beyond that is a lie.
      if (count * 8 > size) throw truncated(count * 8);
      for (let index = 0; index < count; index++) await readValue(itemType, false, depth + 1);
      return null;
    };
    const wanted = (key: string): boolean =>
      key.startsWith('general.') || /^[\w.-]+\.(context_length|block_count|embedding_length|attention\.head_count(_kv)?)$/.test(key);
    for (let index = 0; index < kvCount; index++) {
      const keyLength = await bytes.u64();
      if (keyLength > ggufLimits.keyBytes) throw invalid(`${label} has a damaged header: a key ${String(keyLength)} bytes long.`);
      const key = (await bytes.bytes(Math.min(keyLength, chunkBytes))).toString('utf8');
      const type = await bytes.u32();
      const value = await readValue(type, wanted(key), 0);
      if (value !== null) kept.set(key, value);
    }

    let dataEnd = 0;
    for (let index = 0; index < tensorCount; index++) {
      await readString(false);
      const dimensions = await bytes.u32();
      if (dimensions > ggufLimits.dimensions) throw invalid(`${label} has a damaged header: a tensor of ${dimensions} dimensions.`);
      let elements = 1;
      for (let axis = 0; axis < dimensions; axis++) elements *= await bytes.u64();
      const type = await bytes.u32();
      const offset = await bytes.u64();
      if (type > lastGgmlType) throw invalid(`${label} has a tensor of unknown type ${type}: it needs a newer runtime, or it is damaged.`);
      const sizes = ggmlTypeSizes.get(type);
      const length = sizes ? Math.ceil(elements / sizes[0]) * sizes[1] : 0;
      dataEnd = Math.max(dataEnd, offset + length);
    }
    const alignmentValue = kept.get('general.alignment');
    const alignment = typeof alignmentValue === 'number' && alignmentValue > 0 ? alignmentValue : 32;
    const dataStart = Math.ceil(bytes.pos / alignment) * alignment;
    const end = dataStart + dataEnd;
    if (!Number.isFinite(end)) throw invalid(`${label} has a damaged header: its tensors are impossibly large.`);
    if (end > size)
      throw invalid(
        `${label} is truncated: its tensors need ${end.toLocaleString('en')} bytes and the file has ${size.toLocaleString('en')}. Download it again.`,
      );

    const text = (key: string): string | null => {
      const value = kept.get(key);
      return typeof value === 'string' ? value : null;
    };
    const count = (key: string): number | null => {
      const value = kept.get(key);
      return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : null;
    };
    const architecture = text('general.architecture');
    if (architecture === null) throw invalid(`${label} does not say which model architecture it is (general.architecture).`);
    if (!knownArchitectures.has(architecture))
      throw invalid(`${label} is a model of the “${architecture}” architecture, which the built-in runtime cannot run.`);
    const fileType = count('general.file_type') ?? (kept.get('general.file_type') === 0 ? 0 : null);
    return {
      version,
      architecture,
      name: text('general.name'),
      contextLength: count(`${architecture}.context_length`),
      quantization: fileType === null ? null : (fileTypeNames.get(fileType) ?? null),
      blockCount: count(`${architecture}.block_count`),
      headCount: count(`${architecture}.attention.head_count`),
      headCountKv: count(`${architecture}.attention.head_count_kv`),
      embeddingLength: count(`${architecture}.embedding_length`),
      tensorCount,
      dataEnd: end,
      fileSize: size,
    };
  } finally {
    await file.close();
  }
}
