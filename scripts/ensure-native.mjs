#!/usr/bin/env node
/*
 * Makes sure the native modules are built for the runtime about to load them: Node for the tests,
 * Electron for the app. The app's are better-sqlite3-multiple-ciphers (SQLite with SQLCipher's
 * encryption) and node-pty; the tests and benchmarks also load the plain better-sqlite3 (LangGraph's
 * SqliteSaver, and reading database files from outside), under Node only. They are checked by loading
 * them in that runtime and rebuilt only when the check fails, so `npm start` and `npm test` work in
 * either order.
 *   node scripts/ensure-native.mjs node|electron
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const target = process.argv[2];
if (target !== 'node' && target !== 'electron') {
  console.error('Usage: node scripts/ensure-native.mjs node|electron');
  process.exit(2);
}
const sqliteModules = target === 'node' ? ['better-sqlite3-multiple-ciphers', 'better-sqlite3'] : ['better-sqlite3-multiple-ciphers'];
const modules = [...sqliteModules, 'node-pty'];

const probe = [...sqliteModules.map((name) => `new (require(${JSON.stringify(name)}))(':memory:').close();`), "require('node-pty');"].join(
  ' ',
);

function electronBinary() {
  try {
    return require('electron');
  } catch (error) {
    return { error };
  }
}

function check(runtime) {
  const env = { ...process.env };
  let command = process.execPath;
  if (runtime === 'electron') {
    const binary = electronBinary();
    if (typeof binary !== 'string') return { ok: false, missing: true, detail: String(binary.error?.message ?? binary.error) };
    command = binary;
    env.ELECTRON_RUN_AS_NODE = '1';
  }
  const result = spawnSync(command, ['-e', probe], { env, encoding: 'utf8' });
  if (result.error) return { ok: false, missing: true, detail: result.error.message };
  return { ok: result.status === 0, detail: `${result.stderr ?? ''}`.trim() };
}

function rebuild(runtime) {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (/^npm_config_(runtime|target|disturl|arch)$/i.test(key)) delete env[key];
  if (runtime === 'electron') {
    const version = require('electron/package.json').version;
    Object.assign(env, {
      npm_config_runtime: 'electron',
      npm_config_target: version,
      npm_config_disturl: 'https://electronjs.org/headers',
    });
    console.log(`Rebuilding ${modules.join(', ')} for Electron ${version}…`);
  } else {
    console.log(`Rebuilding ${modules.join(', ')} for Node ${process.version}…`);
  }
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, ['rebuild', ...modules], { env, stdio: 'inherit', shell: process.platform === 'win32' });
  return result.status === 0;
}

const first = check(target);
if (first.ok) process.exit(0);
if (first.missing) {
  console.error(
    target === 'electron'
      ? `Electron's binary is not installed (${first.detail}).\nRun "npm install" without ELECTRON_SKIP_BINARY_DOWNLOAD, or "node node_modules/electron/install.js".`
      : `Node could not be started to check native modules: ${first.detail}`,
  );
  process.exit(1);
}
if (
  !/NODE_MODULE_VERSION|different Node\.js version|invalid ELF|wrong ELF|Module did not self-register|Cannot find module|Could not locate the bindings file|was compiled against|ERR_DLOPEN_FAILED/i.test(
    first.detail,
  )
) {
  console.error(`Loading the native modules failed for a reason a rebuild may not fix:\n${first.detail}`);
}
if (!rebuild(target) || !check(target).ok) {
  console.error(
    `The native modules could not be built for ${target}. See the output above; a C++ toolchain and Python are needed (node-gyp).`,
  );
  process.exit(1);
}
console.log(`Native modules are ready for ${target}.`);
