import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAllSync } from '../src/main/workspace/fd-read';
import { WorkspaceFiles } from '../src/main/workspace/workspace-files';

/*
 * The file tools' race-free path against plain fs.promises calls on the same 1 KB files (two identical
 * trees, one per method), in the same run, interleaved round by round so both see the same disk and
 * the same load. Each timed phase starts after the disk has written what the phase before left
 * pending (`sync`, untimed), and the order alternates by round: otherwise whichever method runs
 * second pays for the first one's writes.
 *
 * - replace: walk from the root, read the old content (the tool shows a diff), write a new file and
 *   rename it over the old one; against writeFile over the existing file.
 * - create: the same for files that do not exist yet; against writeFile of new files.
 * - read: walk, open without following links, read through the descriptor; against readFile.
 *
 * Replacing through a new file costs what creating a file costs, which an overwrite in place does
 * not pay; where creating is slow that cost dominates (on an ext4 disk, creating the new file and
 * freeing the old one's inode take from 0.1 ms to over 1.5 ms each, by the file system's state). So
 * the same is measured again on a memory file system when there is one, where what is left is the
 * walk and the checks.
 */

const files = 500;
const rounds = 7;
const content = `${'x'.repeat(1023)}\n`;
const pathOf = (index: number): string => `src/part${index % 10}/file${index}.txt`;

async function timed(run: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await run();
  return ((performance.now() - started) * 1000) / files;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

interface Figures {
  replacePlain: number;
  replaceOurs: number;
  createPlain: number;
  createOurs: number;
  readPlain: number;
  readOurs: number;
}

/** Writes the disk's pending data (untimed), so a timed phase does not pay for the writes of the phase before it. */
function settle(): void {
  execFileSync('sync');
}

async function measure(parent: string): Promise<Figures> {
  const folder = mkdtempSync(join(parent, 'workbench-bench-files-'));
  // Two identical trees, one per method, so neither method rewrites files the other has just written.
  const tree = (name: string): string => {
    const ws = join(folder, name);
    for (let part = 0; part < 10; part += 1) mkdirSync(join(ws, 'src', `part${part}`), { recursive: true });
    for (let index = 0; index < files; index += 1) writeFileSync(join(ws, pathOf(index)), content);
    return ws;
  };
  const plainWs = tree('plain');
  const oursWs = tree('ours');
  const protectedRoots = [join(folder, 'data')];
  // A new WorkspaceFiles per call, as each tool call makes one.
  const ours = () => new WorkspaceFiles(oursWs, { protectedRoots });
  const samples: Record<keyof Figures, number[]> = {
    replacePlain: [],
    replaceOurs: [],
    createPlain: [],
    createOurs: [],
    readPlain: [],
    readOurs: [],
  };
  const pair = async (round: number, plain: [keyof Figures, () => Promise<void>], race: [keyof Figures, () => Promise<void>]) => {
    // The order alternates round by round, so neither method always runs on a cache or disk the other has warmed.
    for (const [name, run] of round % 2 === 0 ? [plain, race] : [race, plain]) {
      settle();
      samples[name].push(await timed(run));
    }
  };
  try {
    for (let round = 0; round < rounds; round += 1) {
      await pair(
        round,
        [
          'replacePlain',
          async () => {
            for (let index = 0; index < files; index += 1) await writeFile(join(plainWs, pathOf(index)), content);
          },
        ],
        [
          'replaceOurs',
          async () => {
            for (let index = 0; index < files; index += 1) ours().replace(pathOf(index), () => content);
          },
        ],
      );
      await pair(
        round,
        [
          'createPlain',
          async () => {
            for (let index = 0; index < files; index += 1) await writeFile(join(plainWs, `${pathOf(index)}.new${round}`), content);
          },
        ],
        [
          'createOurs',
          async () => {
            for (let index = 0; index < files; index += 1) ours().replace(`${pathOf(index)}.new${round}`, () => content);
          },
        ],
      );
      await pair(
        round,
        [
          'readPlain',
          async () => {
            for (let index = 0; index < files; index += 1) await readFile(join(plainWs, pathOf(index)));
          },
        ],
        [
          'readOurs',
          async () => {
            for (let index = 0; index < files; index += 1)
              await ours().withFile(pathOf(index), async (file) => void readAllSync(file.fd, Number.POSITIVE_INFINITY));
          },
        ],
      );
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  // The first round warms caches and the JIT; the median of the rest is reported.
  const figures = Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values.slice(1))]));
  return figures as unknown as Figures;
}

function report(where: string, figures: Figures): void {
  const line = (what: string, plain: string, plainUs: number, oursUs: number, target = '') =>
    console.log(
      `${where}, ${what}: ${plain} ${plainUs.toFixed(1)} µs, race-free ${oursUs.toFixed(1)} µs (×${(oursUs / plainUs).toFixed(2)}${target})`,
    );
  line('replace 1 KB', 'fs.promises.writeFile', figures.replacePlain, figures.replaceOurs, ', target ≤ 2');
  line('create 1 KB', 'fs.promises.writeFile', figures.createPlain, figures.createOurs, ', target ≤ 2');
  line('read 1 KB', 'fs.promises.readFile', figures.readPlain, figures.readOurs);
}

/** A memory file system on another device than the temporary folder, when the machine has one. */
function memoryFolder(): string | null {
  const shm = lstatSync('/dev/shm', { throwIfNoEntry: false });
  return shm?.isDirectory() && shm.dev !== statSync(tmpdir()).dev ? '/dev/shm' : null;
}

/** The file part of `npm run bench -- tools`: prints per-call costs and answers the figures for the JSON line. */
export async function fileToolsBench(): Promise<Record<string, number>> {
  const round = (value: number): number => Number(value.toFixed(3));
  const disk = await measure(tmpdir());
  report(`temporary folder (${tmpdir()})`, disk);
  const result: Record<string, number> = {
    files,
    write_plain_us: round(disk.replacePlain),
    write_race_free_us: round(disk.replaceOurs),
    write_ratio: round(disk.replaceOurs / disk.replacePlain),
    create_ratio: round(disk.createOurs / disk.createPlain),
    read_ratio: round(disk.readOurs / disk.readPlain),
  };
  const memory = memoryFolder();
  if (memory) {
    const figures = await measure(memory);
    report(`memory file system (${memory})`, figures);
    result['memory_write_ratio'] = round(figures.replaceOurs / figures.replacePlain);
    result['memory_create_ratio'] = round(figures.createOurs / figures.createPlain);
    result['memory_read_ratio'] = round(figures.readOurs / figures.readPlain);
  }
  return result;
}
