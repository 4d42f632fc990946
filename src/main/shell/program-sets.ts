/*
 * The programs the command judge knows by name: those that only read, shells, interpreters, runners, and those that
 * touch disks, mounts, power or the system.
 */

/** Programs that only read (the few that can also write are judged by their options elsewhere). */
export const readOnlyPrograms = new Set(
  (
    'ls cat head tail less more grep egrep fgrep rg ag wc echo printf pwd which type whereis tree stat file du df date uname whoami ' +
    'id hostname uniq cut tr diff cmp comm basename dirname realpath readlink true false test [ [[ : jq yq column nl od hexdump xxd ' +
    'md5sum sha1sum sha256sum sha512sum cksum b2sum seq expr sleep ps top htop free uptime printenv man help locale tput fd fdfind bat ' +
    'wait lsof nproc tac rev fold fmt paste join read getconf arch lscpu lsblk groups tty stty logname users w who last vmstat iostat ' +
    'pgrep pidof strings look cal factor numfmt shuf base64 base32 sum tldr info apropos whatis ' +
    'dirs jobs hash alias unalias set shopt declare typeset local export readonly let shift getopts return break continue exit ' +
    'umask ulimit times compgen complete caller history'
  ).split(' '),
);

export const gitReadOnly = new Set(
  'status log show diff blame grep ls-files ls-tree ls-remote rev-parse rev-list describe shortlog reflog cat-file config remote branch tag stash help version whatchanged show-ref name-rev merge-base count-objects var check-ignore for-each-ref cherry'.split(
    ' ',
  ),
);
export const gitWritesLittle = new Set(
  'add commit switch checkout mv restore apply cherry-pick revert merge rebase am notes bisect sparse-checkout submodule-status'.split(' '),
);
export const packageReadOnly = new Set(
  'ls list view info outdated why explain help search audit config root prefix --version -v bin docs repo fund'.split(' '),
);
export const packageManagers = new Set(['npm', 'pnpm', 'yarn', 'bun', 'npx', 'pnpx', 'bunx']);

export const shells = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'fish', 'csh', 'tcsh', 'busybox']);
export const interpreters = new Set([
  'python',
  'python2',
  'python3',
  'node',
  'nodejs',
  'ruby',
  'perl',
  'php',
  'deno',
  'bun',
  'lua',
  'luajit',
  'Rscript',
  'julia',
  'tclsh',
  'osascript',
  'pwsh',
  'powershell',
  'awk',
  'gawk',
  'mawk',
  'nawk',
]);
export const privileged = new Set(['sudo', 'doas', 'su', 'pkexec', 'run0', 'sudoedit']);
export const diskTools = new Set([
  'dd',
  'shred',
  'wipefs',
  'fdisk',
  'sfdisk',
  'cfdisk',
  'parted',
  'gdisk',
  'sgdisk',
  'mkswap',
  'badblocks',
  'hdparm',
  'blkdiscard',
  'e2fsck',
  'fsck',
  'tune2fs',
  'resize2fs',
  'diskutil',
  'lvremove',
  'vgremove',
  'pvremove',
  'lvcreate',
  'mdadm',
  'zpool',
  'zfs',
]);
export const mountTools = new Set([
  'mount',
  'umount',
  'swapon',
  'swapoff',
  'losetup',
  'cryptsetup',
  'fusermount',
  'hdiutil',
  'mount_smbfs',
]);
export const powerTools = new Set(['shutdown', 'reboot', 'halt', 'poweroff', 'init', 'telinit', 'pmset', 'rtcwake', 'kexec']);
export const systemChangers = new Set([
  'useradd',
  'userdel',
  'usermod',
  'groupadd',
  'groupdel',
  'passwd',
  'chpasswd',
  'visudo',
  'iptables',
  'ip6tables',
  'nft',
  'ufw',
  'modprobe',
  'insmod',
  'rmmod',
  'launchctl',
  'update-rc.d',
  'chsh',
  'at',
  'batch',
  'setcap',
  'csrutil',
  'nvram',
  'scutil',
  'networksetup',
  'defaults',
]);
/** Programs that run the rest of their words as a command. */
export const runners = new Set([
  'exec',
  'nohup',
  'timeout',
  'nice',
  'time',
  'command',
  'builtin',
  'stdbuf',
  'env',
  'setsid',
  'ionice',
  'chrt',
  'taskset',
  'flock',
  'strace',
  'ltrace',
  'unbuffer',
  'caffeinate',
  'chronic',
  'firejail',
]);

/** Options of runners that take a value, so the value is not taken for the command. */
export const runnerOptionValues: Readonly<Record<string, readonly string[]>> = {
  nice: ['-n', '--adjustment'],
  timeout: ['-s', '--signal', '-k', '--kill-after'],
  stdbuf: ['-i', '-o', '-e'],
  env: ['-u', '--unset', '-C', '--chdir', '-S', '--split-string'],
  ionice: ['-c', '-n', '-p', '-t'],
  chrt: ['-T', '-P', '-D', '--sched-runtime', '--sched-period', '--sched-deadline'],
  taskset: [],
  flock: ['-w', '-E', '--timeout', '--wait', '--conflict-exit-code'],
  strace: ['-e', '-o', '-p', '-s', '-u'],
  ltrace: ['-e', '-o', '-p', '-s', '-u'],
  xargs: [
    '-n',
    '-I',
    '-i',
    '-L',
    '-l',
    '-P',
    '-d',
    '-s',
    '-a',
    '-E',
    '-e',
    '--max-args',
    '--max-procs',
    '--delimiter',
    '--arg-file',
    '--replace',
    '--max-lines',
  ],
};

/** Operands a runner takes before the command it runs: timeout's duration, chrt's priority, taskset's mask, flock's lock. */
const leadingOperands: Readonly<Record<string, number>> = { timeout: 1, chrt: 1, taskset: 1, flock: 1 };

/**
 * Where the command a runner runs starts among its words: after its options (and their values, and `NAME=value`
 * for env) and the operands it takes first. Null when a word before it is only known when it runs.
 */
export function runnerCommandStart(runner: string, words: readonly (string | null)[]): number | null {
  const skip = runnerOptionValues[runner] ?? [];
  let index = 0;
  while (index < words.length) {
    const word = words[index];
    if (word === null || word === undefined) return null;
    if (word === '--') {
      index += 1;
      break;
    }
    if (skip.includes(word)) index += 2;
    else if (word.startsWith('-') || (runner === 'env' && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word))) index += 1;
    else break;
  }
  const start = index + (leadingOperands[runner] ?? 0);
  return words.slice(index, start).some((word) => word === null) ? null : start;
}
