/* The writers of the file system's own commands: the ones that delete, change permissions, make, copy, move and link. */

import { hasAny, parseArgs } from '../command-args';
import { destination, each, writes, type Writer, type Writers } from './writer-risk';

/** rm: deleting is write_high; whole folders or files a pattern picks are destructive. */
const rm: Writer = (_program, args) => {
  const parsed = parseArgs(args);
  const paths = each(parsed.operands, 'deletes');
  if (hasAny(parsed, '-r', '-R', '--recursive')) return writes('destructive', 'rm -r deletes whole folders', paths);
  if (parsed.operands.some((arg) => arg.glob || arg.value.kind === 'computed'))
    return writes('destructive', 'rm with a pattern deletes files not named', paths);
  return writes('write_high', 'rm deletes files for good', paths);
};

/** rmdir, unlink: delete what they name. */
const deletes: Writer = (program, args) => writes('write_high', `${program} deletes`, each(parseArgs(args).operands, 'deletes'));

/** truncate: what it names loses its contents. */
const truncate: Writer = (_program, args) =>
  writes(
    'destructive',
    'truncate destroys file contents',
    each(parseArgs(args, ['-s', '--size', '-r', '--reference']).operands, 'truncates'),
  );

/** chmod, chown, chgrp, chattr, setfacl: the first operand is the mode or owner unless a reference or setfacl gives it. */
const permissions: Writer = (program, args) => {
  const parsed = parseArgs(args, ['--reference', '-m', '-x', '-M', '-X', '--from']);
  const byReference = parsed.values.has('--reference') || program === 'setfacl';
  const paths = each(byReference ? parsed.operands : parsed.operands.slice(1), 'changes permissions of');
  if (hasAny(parsed, '-R', '--recursive')) return writes('destructive', `${program} -R changes a whole tree`, paths);
  return writes('write_high', `${program} changes permissions`, paths);
};

/** mkdir: makes the folders it names. */
const mkdir: Writer = (_program, args) =>
  writes('write_low', 'mkdir makes folders', each(parseArgs(args, ['-m', '--mode']).operands, 'makes'));

/** touch: writes the files it names. */
const touch: Writer = (_program, args) =>
  writes('write_low', 'touch writes files', each(parseArgs(args, ['-r', '-d', '-t', '--reference', '--date']).operands, 'writes'));

/** mkfifo, mknod: make a special file at their first operand. */
const special: Writer = (program, args) =>
  writes('write_low', `${program} makes special files`, each(parseArgs(args, ['-m', '--mode']).operands.slice(0, 1), 'makes'));

const copyValues = ['-t', '--target-directory', '-S', '--suffix'];

/** cp: writes into its destination. */
const cp: Writer = (_program, args) => {
  const into = destination(parseArgs(args, copyValues));
  return writes('write_low', 'cp writes files', into ? [{ arg: into, verb: 'copies into' }] : []);
};

/** mv: writes into its destination, and takes its sources away from where they were. */
const mv: Writer = (_program, args) => {
  const parsed = parseArgs(args, copyValues);
  const into = destination(parsed);
  // Moving takes the sources away from where they were, so they are written too.
  return writes('write_low', 'mv moves files', [...each(parsed.operands, 'moves'), ...(into ? [{ arg: into, verb: 'moves into' }] : [])]);
};

/** ln: makes a link at its destination; what it links to is judged too, since a link can lead outside. */
const ln: Writer = (_program, args) => {
  const parsed = parseArgs(args, copyValues);
  const into = destination(parsed);
  const symbolic = hasAny(parsed, '-s', '--symbolic');
  const sources = into ? parsed.operands.filter((arg) => arg !== into) : parsed.operands;
  // A symbolic link's relative target is read from the link's folder, unless ln makes it relative itself (-r).
  const from = symbolic && into && !hasAny(parsed, '-r', '--relative') ? into : undefined;
  // A hard link to a file outside lets a later write inside change that file.
  return writes('write_low', 'ln makes links', [
    ...(into ? [{ arg: into, verb: 'makes a link at' }] : []),
    // A link that leads outside is a way out for whatever writes through it later.
    ...sources.map((arg) => ({ arg, verb: symbolic ? 'links to' : 'hard-links', ...(from ? { from } : {}) })),
  ]);
};

/** tee: writes the files it names, other than the terminal's own. */
const tee: Writer = (_program, args) => {
  const files = parseArgs(args).operands.filter((arg) => !/^\/dev\/(null|stdout|stderr|tty)$/.test(arg.text ?? ''));
  return files.length === 0 ? writes('read_only', 'tee only prints') : writes('write_low', 'tee writes files', each(files, 'writes'));
};

/** install: makes folders (-d), or copies into its destination. */
const install: Writer = (_program, args) => {
  const parsed = parseArgs(args, ['-t', '--target-directory', '-m', '--mode', '-o', '--owner', '-g', '--group', '-S', '--suffix']);
  if (hasAny(parsed, '-d', '--directory')) return writes('write_low', 'install makes folders', each(parsed.operands, 'makes'));
  const into = destination(parsed);
  return writes('write_low', 'install copies files', into ? [{ arg: into, verb: 'installs into' }] : []);
};

export const fileWriters: Writers = {
  rm,
  rmdir: deletes,
  unlink: deletes,
  truncate,
  chmod: permissions,
  chown: permissions,
  chgrp: permissions,
  chattr: permissions,
  setfacl: permissions,
  mkdir,
  touch,
  mkfifo: special,
  mknod: special,
  cp,
  mv,
  ln,
  tee,
  install,
};
