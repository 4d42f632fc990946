/* The writers of build tools: a build runs whatever its build files say, so it is write_high wherever it builds. */

import { parseArgs } from '../command-args';
import { writes, type Writer, type WrittenPath, type Writers } from './writer-risk';

/** make, ninja, cmake: the folders they build in (-C, or cmake's -B). */
const build: Writer = (program, args) => {
  const parsed = parseArgs(
    args,
    program === 'cmake'
      ? ['-B', '-S', '-G', '-D', '-C', '-T', '-A']
      : ['-C', '--directory', '-f', '--file', '-j', '--jobs', '-l', '-o', '-W'],
  );
  const paths: WrittenPath[] = [];
  for (const option of program === 'cmake' ? ['-B'] : ['-C', '--directory']) {
    const folder = parsed.values.get(option);
    if (folder) paths.push({ arg: folder, verb: 'builds in' });
  }
  return writes('write_high', `${program} runs a build`, paths);
};

export const buildWriters: Writers = { make: build, ninja: build, cmake: build };
