/* The table of the commands that write files: which writer judges each program, by group. */

import type { Arg } from './command-args';
import { archiveWriters } from './writers/archive-writers';
import { buildWriters } from './writers/build-writers';
import { fileWriters } from './writers/file-writers';
import { networkWriters } from './writers/network-writers';
import { textWriters } from './writers/text-writers';
import type { Writer, WriterRisk } from './writers/writer-risk';

export type { WriterRisk, WrittenPath } from './writers/writer-risk';

/** Every writing program's writer. A map, so that a program named like an object's own key (`constructor`) is no writer. */
const writers: ReadonlyMap<string, Writer> = new Map(
  Object.entries({ ...fileWriters, ...textWriters, ...archiveWriters, ...networkWriters, ...buildWriters }),
);

/**
 * The commands that write files, with the paths they write: each path is then judged by where it is.
 * Null for a program that is not one of them.
 */
export function argTargets(program: string, args: readonly Arg[]): WriterRisk | null {
  return writers.get(program)?.(program, args) ?? null;
}
