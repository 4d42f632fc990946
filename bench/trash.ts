import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { atRestSeal } from '../src/main/secrets/at-rest-seal';
import { Trash } from '../src/main/tools/trash';
import { WorkspaceFiles } from '../src/main/workspace/workspace-files';

/*
 * The trash with an encrypted database against a plain one: a 50 MB file deleted (moved into the trash, then sealed a
 * chunk at a time and flushed) and restored (opened, checked and flushed into a staging folder, then moved back),
 * against the same file moved in and out of a plain trash, which is two renames. Rounds alternate the order so neither
 * always runs on a cache the other warmed; the first round is left out and the median of the rest reported.
 */

const size = 50 << 20;
const rounds = 7;
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

function writeBigFile(path: string): void {
  const chunk = Buffer.alloc(1 << 20);
  const fd = openSync(path, 'w');
  try {
    for (let at = 0; at < size; at += chunk.length) {
      for (let i = 0; i < chunk.length; i += 4) chunk.writeUInt32LE((at + i) >>> 2, i);
      writeSync(fd, chunk);
    }
  } finally {
    closeSync(fd);
  }
}

async function roundTrip(trash: Trash, ws: string, data: string, id: string): Promise<{ put: number; restore: number }> {
  const files = new WorkspaceFiles(ws, { protectedRoots: [data] });
  let started = performance.now();
  await trash.put(files, 'big.bin', { id, workspacePath: ws, now: Date.now() });
  const put = performance.now() - started;
  started = performance.now();
  await trash.restore(id);
  return { put, restore: performance.now() - started };
}

export async function runTrashBench(): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'workbench-bench-trash-'));
  try {
    const ws = join(folder, 'ws');
    const data = join(folder, 'data');
    mkdirSync(ws);
    mkdirSync(data);
    writeBigFile(join(ws, 'big.bin'));
    const plain = new Trash(join(data, 'trash'), [data]);
    const sealed = new Trash(join(data, 'trash'), [data], atRestSeal(Buffer.alloc(32, 1), 'trash'));
    const samples = { plainPut: [] as number[], plainRestore: [] as number[], sealedPut: [] as number[], sealedRestore: [] as number[] };
    for (let round = 0; round < rounds; round += 1) {
      const order = round % 2 === 0 ? (['plain', 'sealed'] as const) : (['sealed', 'plain'] as const);
      for (const kind of order) {
        const times = await roundTrip(kind === 'plain' ? plain : sealed, ws, data, `${kind}${round}`);
        if (round === 0) continue;
        samples[`${kind}Put`].push(times.put);
        samples[`${kind}Restore`].push(times.restore);
      }
    }
    const figures = {
      plainPutMs: median(samples.plainPut),
      sealedPutMs: median(samples.sealedPut),
      plainRestoreMs: median(samples.plainRestore),
      sealedRestoreMs: median(samples.sealedRestore),
    };
    const ms = (value: number): string => `${value.toFixed(1)} ms`;
    console.log(`50 MB file to the trash:   sealed ${ms(figures.sealedPutMs)}, plain ${ms(figures.plainPutMs)}`);
    console.log(`50 MB file restored:       sealed ${ms(figures.sealedRestoreMs)}, plain ${ms(figures.plainRestoreMs)}`);
    console.log(JSON.stringify({ bench: 'trash', bytes: size, ...figures }));
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
