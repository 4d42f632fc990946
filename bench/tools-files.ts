import { mkdirSync, writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readAllSync } from '../src/main/workspace/fd-read';
import { WorkspaceFiles } from '../src/main/workspace/workspace-files';
import { temporaryFolder } from '../test/helpers';

/*
 * The file tools' race-free path against plain fs.promises calls on the same 1 KB files, in the
 * same run, interleaved round by round so both see the same disk and the same load: replacing a
 * file (walk from the root, read the old content for the diff, write a new file, rename it over)
 * against writeFile, and reading one (walk, open without following links, read through the
 * descriptor) against readFile. The target is at most 2× for writes.
 */

const files = 500;
const rounds = 6;
const content = `${'x'.repeat(1023)}\n`;
const pathOf = (index: number): string => `src/part${index % 10}/file${index}.txt`;

async function timed(run: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await run();
  return ((performance.now() - started) * 1000) / files;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/** The file part of `npm run bench -- tools`: prints per-call costs and answers the figures for the JSON line. */
export async function fileToolsBench(): Promise<Record<string, number>> {
  const folder = temporaryFolder('workbench-bench-files-');
  const ws = join(folder.path, 'ws');
  for (let part = 0; part < 10; part += 1) mkdirSync(join(ws, 'src', `part${part}`), { recursive: true });
  for (let index = 0; index < files; index += 1) writeFileSync(join(ws, pathOf(index)), content);
  const workspace = new WorkspaceFiles(ws, { protectedRoots: [join(folder.path, 'data')] });

  const plainWrites: number[] = [];
  const ourWrites: number[] = [];
  const plainReads: number[] = [];
  const ourReads: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    plainWrites.push(
      await timed(async () => {
        for (let index = 0; index < files; index += 1) await writeFile(join(ws, pathOf(index)), content);
      }),
    );
    ourWrites.push(
      await timed(async () => {
        // A new WorkspaceFiles per call, as each tool call makes one.
        for (let index = 0; index < files; index += 1)
          new WorkspaceFiles(ws, { protectedRoots: [join(folder.path, 'data')] }).replace(pathOf(index), () => content);
      }),
    );
    plainReads.push(
      await timed(async () => {
        for (let index = 0; index < files; index += 1) await readFile(join(ws, pathOf(index)));
      }),
    );
    ourReads.push(
      await timed(async () => {
        for (let index = 0; index < files; index += 1)
          await workspace.withFile(pathOf(index), async (file) => void readAllSync(file.fd, Number.POSITIVE_INFINITY));
      }),
    );
  }
  folder.remove();
  // The first round warms caches and the JIT; the median of the rest is reported.
  const [writePlain, writeOurs, readPlain, readOurs] = [plainWrites, ourWrites, plainReads, ourReads].map((values) =>
    median(values.slice(1)),
  ) as [number, number, number, number];
  console.log(
    `write 1 KB: fs.promises.writeFile ${writePlain.toFixed(1)} µs, race-free replace ${writeOurs.toFixed(1)} µs (×${(writeOurs / writePlain).toFixed(2)}, target ≤ 2)`,
  );
  console.log(
    `read 1 KB: fs.promises.readFile ${readPlain.toFixed(1)} µs, race-free read ${readOurs.toFixed(1)} µs (×${(readOurs / readPlain).toFixed(2)})`,
  );
  const round = (value: number): number => Number(value.toFixed(3));
  return {
    files,
    write_plain_us: round(writePlain),
    write_race_free_us: round(writeOurs),
    write_ratio: round(writeOurs / writePlain),
    read_plain_us: round(readPlain),
    read_race_free_us: round(readOurs),
    read_ratio: round(readOurs / readPlain),
  };
}
