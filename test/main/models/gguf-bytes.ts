/** A metadata value to write: a string, a u32, a u64 (bigint), or an array of strings. */
export type GgufValue = string | number | bigint | readonly string[];

export interface GgufTensor {
  readonly name: string;
  readonly dimensions: readonly number[];
  /** ggml type id; 0 (F32) by default. */
  readonly type?: number;
}

const u32 = (value: number): Buffer => {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32LE(value);
  return buffer;
};
const u64 = (value: number | bigint): Buffer => {
  const buffer = Buffer.alloc(8);
  buffer.writeBigUInt64LE(BigInt(value));
  return buffer;
};
const text = (value: string): Buffer => Buffer.concat([u64(Buffer.byteLength(value)), Buffer.from(value, 'utf8')]);

function value(item: GgufValue): Buffer {
  if (typeof item === 'string') return Buffer.concat([u32(8), text(item)]);
  if (typeof item === 'number') return Buffer.concat([u32(4), u32(item)]);
  if (typeof item === 'bigint') return Buffer.concat([u32(10), u64(item)]);
  return Buffer.concat([u32(9), u32(8), u64(item.length), ...item.map(text)]);
}

/**
 * The bytes of a small GGUF (version 3) file: header, metadata, tensor table, and F32 tensor data (zeros), aligned to
 * 32 bytes as the format wants. Enough for the header reader and the downloader; not a model anything can run.
 */
export function ggufBytes(
  options: {
    metadata?: Readonly<Record<string, GgufValue>>;
    tensors?: readonly GgufTensor[];
    version?: number;
  } = {},
): Buffer {
  const metadata = options.metadata ?? {
    'general.architecture': 'llama',
    'general.name': 'Tiny Test',
    'llama.context_length': 4096,
    'general.file_type': 15,
    'tokenizer.ggml.tokens': ['<s>', '</s>', 'a', 'b'],
  };
  const tensors = options.tensors ?? [
    { name: 'token_embd.weight', dimensions: [8, 4] },
    { name: 'output.weight', dimensions: [8, 4] },
  ];
  const entries = Object.entries(metadata);
  const parts: Buffer[] = [Buffer.from('GGUF', 'latin1'), u32(options.version ?? 3), u64(tensors.length), u64(entries.length)];
  for (const [key, item] of entries) parts.push(text(key), value(item));
  let offset = 0;
  const sizes: number[] = [];
  for (const tensor of tensors) {
    const elements = tensor.dimensions.reduce((product, size) => product * size, 1);
    const bytes = elements * 4;
    parts.push(
      text(tensor.name),
      u32(tensor.dimensions.length),
      ...tensor.dimensions.map((size) => u64(size)),
      u32(tensor.type ?? 0),
      u64(offset),
    );
    sizes.push(bytes);
    offset += Math.ceil(bytes / 32) * 32;
  }
  const header = Buffer.concat(parts);
  const padding = (32 - (header.length % 32)) % 32;
  return Buffer.concat([header, Buffer.alloc(padding), Buffer.alloc(offset, 0)]);
}

/** Raw pieces, for files that are wrong on purpose. */
export const ggufPieces = { u32, u64, text };
