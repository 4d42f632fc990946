/*
 * Imported first (`--import`) into a process that must start no Node child, as an Electron process cannot once the
 * RunAsNode fuse is off (Electron runs a forked child as Node only through ELECTRON_RUN_AS_NODE): child_process.fork
 * throws, for CommonJS callers and ES module importers alike.
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

childProcess.fork = (() => {
  throw new Error('This process cannot start a Node child: the RunAsNode fuse is off.');
}) as typeof childProcess.fork;
syncBuiltinESMExports();
