#!/usr/bin/env node
/*
 * `npm run test:electron`: the smoke suite of the real app in Electron (test/electron-smoke/). Builds the app, makes
 * sure the native modules are built for Electron, and runs the suite, on xvfb-run's display on a Linux without one.
 * Arguments go to vitest (a file or a test name to run alone).
 *
 * Where it cannot run (no Electron binary, no display) it says why and exits with status 77 (not run), never 0. It
 * leaves the native modules built for Electron; `npm test` (and every npm script that runs under Node) builds them for
 * Node again first, only when they are not.
 */
import { spawnSync } from 'node:child_process';
import { electronSmokeReadiness, notRunLines, notRunStatus } from './electron-smoke.mjs';

const bin = (name) => `node_modules/.bin/${name}${process.platform === 'win32' ? '.cmd' : ''}`;

function run(command, args) {
  const result = spawnSync(command, args, { stdio: 'inherit', shell: process.platform === 'win32' });
  return result.status ?? 1;
}

const readiness = electronSmokeReadiness();
if (!readiness.ready) {
  for (const line of notRunLines(readiness.reason)) console.error(line);
  process.exit(notRunStatus);
}

console.log(`Electron: ${readiness.binary}`);
const built = run(bin('electron-vite'), ['build']);
if (built !== 0) process.exit(built);
const natives = run(process.execPath, ['scripts/ensure-native.mjs', 'electron']);
if (natives !== 0) process.exit(natives);

const suite = [bin('vitest'), 'run', '--config', 'test/electron-smoke/vitest.config.ts', ...process.argv.slice(2)];
const [command, ...args] = [...readiness.wrapper, ...suite];
const status = run(command, args);
console.log('\nThe native modules are built for Electron now; `npm test` builds them for Node again before its tests.');
process.exit(status);
