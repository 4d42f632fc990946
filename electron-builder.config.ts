import { readFileSync } from 'node:fs';
import { log, type Configuration } from 'electron-builder';
import { linuxTargets } from './build/linux-targets';
import { signingCheck, signingPlan } from './build/signing';

/*
 * How `npm run dist` packages the app (electron-builder 26): an AppImage and a .tar.gz on Linux (and a .deb once
 * package.json has a homepage), a .dmg on macOS, an NSIS installer on Windows, each for the machine it runs on, signed
 * where the environment gives the credentials (build/signing.ts). test/packaging/package-contents.test.ts packs the
 * app with this configuration (its Electron stand-in aside) and checks what the archive holds.
 */

/** Exported sessions are `<title>.workbench-session.json` (src/shared/session-export.ts). */
const sessionFileExtension = 'workbench-session.json';

/** Native modules: loaded with dlopen or spawned, which cannot happen inside an asar archive. */
export const unpackedModules = [
  // SQLite with SQLCipher's encryption (better-sqlite3-multiple-ciphers): the database is encrypted at rest.
  'node_modules/better-sqlite3-multiple-ciphers/**',
  // node-pty spawns its helper (spawn-helper on macOS, the conpty/winpty agents on Windows) from here.
  'node_modules/node-pty/**',
  // The built-in runtime's prebuilt llama.cpp binaries: the addon and the shared libraries beside it.
  'node_modules/@node-llama-cpp/**',
  'node_modules/node-llama-cpp/bins/**',
  'node_modules/node-llama-cpp/llama/localBuilds/**',
];

/** The project's package.json, which decides the Linux targets. */
const manifest: unknown = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

/** What is signed and notarized, from the environment electron-builder reads the credentials from. */
export const signing = signingPlan(process.env);

const config: Configuration = {
  appId: 'dev.agent-workbench.app',
  productName: 'Agent Workbench',
  executableName: 'agent-workbench',
  copyright: 'Agent Workbench',
  directories: { output: 'dist', buildResources: 'build' },
  icon: 'build/icon.png',

  // What the app runs is electron-vite's output (main, preload, renderer); package.json comes along by itself, and
  // the production dependencies are added from node_modules (devDependencies never are). Sources, tests, scripts,
  // docs and the test host's bridge (out/test-host) are not listed, so they stay out.
  files: [
    'out/main/**',
    'out/preload/**',
    'out/renderer/**',
    '!**/*.map',
    '!**/.env*',
    '!**/*.{pem,key,p12}',
    '!**/node_modules/**/{README,CHANGELOG,HISTORY,CONTRIBUTING}*',
    // Docs, and the TypeScript sources and declarations some packages ship beside their JavaScript.
    '!**/node_modules/**/*.{md,markdown,ts,cts,mts,tsx,tsbuildinfo}',
    // Native sources and build leftovers: the built .node files are what is loaded.
    '!**/node_modules/better-sqlite3-multiple-ciphers/{deps,src}/**',
    '!**/node_modules/better-sqlite3-multiple-ciphers/build/Release/{obj,obj.target,.deps}/**',
    '!**/node_modules/better-sqlite3-multiple-ciphers/build/Release/{*.a,test_extension.node}',
    '!**/node_modules/node-pty/{src,deps,scripts,typings}/**',
    '!**/node_modules/node-pty/prebuilds/**',
    'node_modules/node-pty/prebuilds/${platform}-${arch}/**',
    // The shell parser loads tree-sitter-bash's grammar as WebAssembly (src/main/shell/bash-parser.ts); its native
    // binding and sources are never loaded. The .wasm files are read with fs, which reads inside the archive.
    '!**/node_modules/tree-sitter-bash/{src,prebuilds,bindings,queries}/**',
    '!**/node_modules/tree-sitter-bash/{binding.gyp,grammar.js}',
    // llama.cpp: only this platform's prebuilt binaries. The CUDA runtime libraries (`-cuda-ext`, 358 MB on Linux)
    // stay out: the CUDA build then uses the system's CUDA libraries, or the runtime falls back to Vulkan or the CPU.
    // The llama.cpp source bundle is for building from source, which a packaged app does not do.
    '!**/node_modules/@node-llama-cpp/**',
    'node_modules/@node-llama-cpp/${os}-${arch}*/**',
    '!**/node_modules/@node-llama-cpp/*-cuda-ext/**',
    '!**/node_modules/node-llama-cpp/bins/**',
    'node_modules/node-llama-cpp/bins/${os}-${arch}*/**',
    '!**/node_modules/node-llama-cpp/llama/localBuilds/**',
    'node_modules/node-llama-cpp/llama/localBuilds/${os}-${arch}*/**',
    '!**/node_modules/node-llama-cpp/llama/gitRelease.bundle',
  ],
  asar: true,
  asarUnpack: unpackedModules,

  // Native modules are rebuilt for Electron's ABI before packing. electron-builder does it with @electron/rebuild
  // (`nativeRebuilder`: sequential is @electron/rebuild one module at a time), from prebuilt binaries where a module
  // publishes them for Electron, else with node-gyp against Electron's headers (downloaded). It rebuilds the
  // project's own node_modules: afterwards `npm test` rebuilds them for Node again (scripts/ensure-native.mjs).
  npmRebuild: true,
  nativeRebuilder: 'sequential',
  buildDependenciesFromSource: false,

  // Fuses are switches compiled into the Electron binary, flipped once when packing (@electron/fuses).
  electronFuses: {
    // Nothing runs Electron as Node. The built-in model runtime is a utilityProcess, and the process in which
    // node-llama-cpp tries a prebuilt llama.cpp binary before loading it (Linux; GPU builds on Windows), which it would
    // fork from the runtime with child_process.fork, is started by the main process as a utilityProcess of its own
    // (src/main/runtime/binary-test-relay.ts).
    runAsNode: false,
    enableNodeOptionsEnvironmentVariable: false,
    enableNodeCliInspectArguments: false,
    enableCookieEncryption: true,
    // Checked on macOS and Windows; with onlyLoadAppFromAsar, code outside the checked archive is never loaded.
    enableEmbeddedAsarIntegrityValidation: true,
    onlyLoadAppFromAsar: true,
    // The window loads from app://, never file://.
    grantFileProtocolExtraPrivileges: false,
  },

  // Before each platform is packed: stops when its credentials are given only in part, else says what is signed.
  beforePack: signingCheck(signing, (line) => log.info(null, line)),

  linux: {
    target: linuxTargets(manifest),
    category: 'Development',
    maintainer: 'Agent Workbench',
    synopsis: 'Work with an AI agent on a folder of your own',
    // shared-mime-info matches whole name patterns, so the compound extension is a type of its own here.
    fileAssociations: [
      {
        ext: sessionFileExtension,
        name: 'Agent Workbench session',
        description: 'A session exported from Agent Workbench',
        mimeType: 'application/x-agent-workbench-session+json',
      },
    ],
  },
  mac: {
    target: ['dmg'],
    category: 'public.app-category.developer-tools',
    // Signed with CSC_LINK's certificate or CSC_NAME's keychain identity, else ad-hoc; notarized when Apple's
    // credentials are set. The hardened runtime that notarization requires, with what the app needs under it.
    identity: signing.mac.identity,
    notarize: signing.mac.notarize,
    hardenedRuntime: true,
    entitlements: 'build/entitlements.mac.plist',
    entitlementsInherit: 'build/entitlements.mac.plist',
    // macOS types a file by its last extension only (`.json`), so `workbench-session.json` would never match: the app
    // is offered for JSON files under Open With (an alternate handler, never the default), and imports what is a session.
    fileAssociations: [{ ext: 'json', name: 'Agent Workbench session', role: 'Viewer', rank: 'Alternate' }],
    // The Dock takes a folder dropped on the icon only from an app that says it opens folders (sent as `open-file`).
    extendInfo: {
      CFBundleDocumentTypes: [
        { CFBundleTypeName: 'Folder', CFBundleTypeRole: 'Viewer', LSHandlerRank: 'Alternate', LSItemContentTypes: ['public.folder'] },
      ],
    },
  },
  dmg: { title: '${productName} ${version}' },
  // Windows also types a file by its last extension, and NSIS can only make the app the default for `.json`, which
  // would take every JSON file: no association there. A session file opens from the command line, the icon, or Import.
  // Signed with WIN_CSC_LINK's certificate (else CSC_LINK's) when one is set.
  win: { target: ['nsis'], signExecutable: signing.windows.signExecutable },
  nsis: { oneClick: false, perMachine: false, allowToChangeInstallationDirectory: true, deleteAppDataOnUninstall: false },
};

export default config;
