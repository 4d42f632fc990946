import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { inflateSync } from 'node:zlib';
import { extractFile, listPackage, statFile } from '@electron/asar';
import { build, log, Platform, type Configuration } from 'electron-builder';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import config, { unpackedModules } from '../../electron-builder.config';
import { sessionFileSuffix } from '../../src/shared/session-export';
import { drawIcon } from '../../scripts/make-icon.mjs';
import { linuxPackage, needs } from '../platform';
import {
  archivedPackages,
  packagesBundledIntoRenderer,
  packagesLoadedBy,
  reachableFrom,
  resolveIn,
  secondCopies,
  sizeOf,
  type ArchivedPackage,
  type SecondCopy,
} from './archive-packages';

const projectRoot = resolve(import.meta.dirname, '../..');
const manifest = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };

describe('the packaging configuration', () => {
  it('rebuilds the native modules for Electron with @electron/rebuild before packing', () => {
    expect(config.npmRebuild).toBe(true);
    expect(config.nativeRebuilder).toBe('sequential');
    expect(config.buildDependenciesFromSource).toBe(false);
  });

  it('flips the fuses of a hardened build', () => {
    expect(config.electronFuses).toEqual({
      // Off everywhere: node-llama-cpp's binary test is a utility process the main process starts, not a Node child.
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableCookieEncryption: true,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      grantFileProtocolExtraPrivileges: false,
    });
    expect(config.asar).toBe(true);
  });

  it('builds an AppImage and a .tar.gz on Linux (a .deb once package.json has a homepage), a .dmg on macOS and an NSIS installer on Windows', () => {
    expect(config.linux?.target).toEqual(expect.arrayContaining(['AppImage', 'tar.gz']));
    expect(config.mac?.target).toEqual(['dmg']);
    expect(config.win?.target).toEqual(['nsis']);
  });

  it('registers exported sessions with the system where a compound extension can be matched', () => {
    const linux = [config.linux?.fileAssociations ?? []].flat();
    expect(linux).toHaveLength(1);
    expect(`.${String(linux[0]?.ext)}`).toBe(sessionFileSuffix);
    expect(linux[0]?.mimeType).toMatch(/^application\/x-agent-workbench-session/);
    // macOS types files by their last extension: offered for JSON, never the default.
    expect([config.mac?.fileAssociations ?? []].flat()).toEqual([expect.objectContaining({ ext: 'json', rank: 'Alternate' })]);
    expect(config.fileAssociations).toBeUndefined();
    // A folder dropped on the Dock icon reaches the app only when it declares it opens folders.
    expect(config.mac?.extendInfo?.['CFBundleDocumentTypes']).toEqual([expect.objectContaining({ LSItemContentTypes: ['public.folder'] })]);
    expect(config.win?.fileAssociations).toBeUndefined();
  });

  it('has the icon scripts/make-icon.mjs draws, a 1024×1024 PNG', () => {
    const png = readFileSync(join(projectRoot, String(config.icon)));
    expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20), png[24], png[25]]).toEqual([1024, 1024, 8, 6]);
    // Its pixels, not its bytes: another zlib may compress the same rows differently.
    const idat: Buffer[] = [];
    for (let at = 8; at < png.length;) {
      const length = png.readUInt32BE(at);
      if (png.toString('ascii', at + 4, at + 8) === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + length));
      at += 12 + length;
    }
    const rows = inflateSync(Buffer.concat(idat));
    const pixels = Buffer.alloc(1024 * 1024 * 4);
    for (let row = 0; row < 1024; row += 1) {
      expect(rows[row * 4097]).toBe(0);
      rows.copy(pixels, row * 4096, row * 4097 + 1, (row + 1) * 4097);
    }
    expect(pixels.equals(drawIcon(1024))).toBe(true);
  });
});

/**
 * electron-builder run for real on this configuration, `--dir` target, into a temporary folder. Two things differ,
 * because both need Electron's real binary, which an install with ELECTRON_SKIP_BINARY_DOWNLOAD=1 lacks: the
 * Electron distribution is a stand-in folder (electron-builder only copies it), and the native rebuild and the fuses
 * are left out (the checks above pin them). The stand-in's layout is Linux's, so this part runs on Linux.
 */
describe('what electron-builder puts into the archive', needs(linuxPackage), () => {
  const work = mkdtempSync(join(tmpdir(), 'workbench-pack-'));
  let resources = '';
  let files: string[] = [];
  let output = '';
  let runConfig: Configuration = config;
  let packages = new Map<string, ArchivedPackage>();
  /** The packages the built main process (its three entries and their chunks) and the preload load at run time. */
  let mainLoads = new Set<string>();

  beforeAll(async () => {
    const built = [
      'out/main/index.js',
      'out/main/runtime-host.js',
      'out/main/tag-worker.js',
      'out/preload/index.cjs',
      'out/renderer/index.html',
    ].every((path) => existsSync(join(projectRoot, path)));
    if (!built) {
      const result = spawnSync(process.execPath, [join(projectRoot, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], {
        cwd: projectRoot,
        encoding: 'utf8',
      });
      if (result.status !== 0) throw new Error(`electron-vite build failed:\n${result.stderr}`);
    }
    const electronDist = join(work, 'electron-stand-in');
    mkdirSync(join(electronDist, 'resources'), { recursive: true });
    writeFileSync(join(electronDist, 'electron'), '#!/bin/sh\nexit 1\n');
    chmodSync(join(electronDist, 'electron'), 0o755);
    writeFileSync(join(electronDist, 'LICENSE'), 'stand-in');
    runConfig = {
      ...config,
      // electron-builder rewrites the file patterns in place: each run gets its own.
      files: structuredClone(config.files),
      electronDist,
      npmRebuild: false,
      electronFuses: null,
      directories: { ...config.directories, output: join(work, 'dist') },
    };
    try {
      await quietly(() =>
        build({ projectDir: projectRoot, targets: Platform.LINUX.createTarget('dir'), publish: 'never', config: runConfig }),
      );
    } catch (error) {
      throw new Error(`electron-builder failed: ${String(error)}\n${output}`, { cause: error });
    }
    resources = join(work, 'dist/linux-unpacked/resources');
    const archive = join(resources, 'app.asar');
    files = listPackage(archive, { isPack: false }).map((path) => path.replace(/^\//, ''));
    packages = archivedPackages(archive, files);
    mainLoads = new Set(
      files
        .filter((path) => /^out\/(main\/.*\.js|preload\/.*\.cjs)$/.test(path))
        .flatMap((path) => [...packagesLoadedBy(extractFile(archive, path).toString('utf8'))]),
    );
    const megabytes = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;
    const [packed, unpacked] = [sizeOf(archive), sizeOf(join(resources, 'app.asar.unpacked'))];
    console.info(
      `The package: app.asar ${megabytes(packed)}, app.asar.unpacked ${megabytes(unpacked)}, ${megabytes(packed + unpacked)} in all`,
    );
  }, 180_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  /** Runs electron-builder with its log (on stdout) kept in `output`, to be shown only when it fails. */
  async function quietly<T>(run: () => Promise<T>): Promise<T> {
    const stream = (log as unknown as { stream: NodeJS.WritableStream }).stream;
    Object.assign(log, { stream: { write: (chunk: string) => (output += chunk) } });
    try {
      return await run();
    } finally {
      Object.assign(log, { stream });
    }
  }

  const outside = (path: string): boolean => path !== 'node_modules' && !path.startsWith('node_modules/');

  it('holds the built app and package.json, and none of the sources, tests, scripts, docs or the test host', () => {
    expect(files.filter(outside).sort()).toEqual(
      // The built-in model runtime's entry, which its utility process starts, and the code map's tagging thread's
      // are part of the app.
      expect.arrayContaining([
        'out/main/index.js',
        'out/main/runtime-host.js',
        'out/main/tag-worker.js',
        'out/preload/index.cjs',
        'out/renderer/index.html',
        'package.json',
      ]),
    );
    const allowed = /^(package\.json|out|out\/(main|preload|renderer)(\/.*)?)$/;
    expect(files.filter(outside).filter((path) => !allowed.test(path))).toEqual([]);
    expect(files.filter((path) => /^(src|test|bench|scripts|seeds|resources|build|docs|out\/test-host)(\/|$)/.test(path))).toEqual([]);
    expect(files.filter((path) => /\.(map|md|ts|tsx)$/.test(path) || /(^|\/)\.env/.test(path))).toEqual([]);
  });

  it('holds the production dependencies and no development ones', () => {
    const packages = new Set(files.filter((path) => path.startsWith('node_modules/')).map((path) => path.split('/').slice(1, 3).join('/')));
    const has = (name: string): boolean => [...packages].some((entry) => entry === name || entry.startsWith(`${name}/`));
    for (const name of [
      'better-sqlite3-multiple-ciphers',
      'node-pty',
      'zod',
      'openai',
      '@anthropic-ai/sdk',
      'web-tree-sitter',
      'node-llama-cpp',
    ])
      expect(has(name), name).toBe(true);
    for (const name of [
      // The plain SQLite binding is for the tests and benchmarks only: the app opens its database with the one above.
      'better-sqlite3',
      'electron',
      'electron-builder',
      'vitest',
      'playwright',
      'typescript',
      'eslint',
      'electron-vite',
      '@electron/rebuild',
    ])
      expect(has(name), name).toBe(false);
  });

  it('keeps the native modules outside the archive, where they can be loaded', () => {
    for (const native of [
      'node_modules/better-sqlite3-multiple-ciphers/build/Release/better_sqlite3.node',
      'node_modules/node-pty/build/Release/pty.node',
    ]) {
      expect(statFile(join(resources, 'app.asar'), native)).toMatchObject({ unpacked: true });
      expect(statSync(join(resources, 'app.asar.unpacked', native)).size).toBeGreaterThan(0);
    }
    const llama = files.filter((path) => path.startsWith('node_modules/@node-llama-cpp/') && path.endsWith('.node'));
    expect(llama.length).toBeGreaterThan(0);
    for (const addon of llama) expect(existsSync(join(resources, 'app.asar.unpacked', addon)), addon).toBe(true);
    expect(unpackedModules).toContain('node_modules/@node-llama-cpp/**');
  });

  it("keeps only this platform's llama.cpp binaries, without the CUDA runtime libraries", () => {
    const variants = new Set(
      files.filter((path) => path.startsWith('node_modules/@node-llama-cpp/')).map((path) => path.split('/')[2] ?? ''),
    );
    expect(variants.size).toBeGreaterThan(0);
    const os = { linux: 'linux', darwin: 'mac', win32: 'win' }[process.platform as string];
    for (const variant of variants) {
      expect(variant.startsWith(`${os}-${process.arch}`), variant).toBe(true);
      expect(variant.endsWith('-cuda-ext'), variant).toBe(false);
    }
  });

  it("keeps the shell grammar's WebAssembly and drops its native parts", () => {
    expect(files).toContain('node_modules/tree-sitter-bash/tree-sitter-bash.wasm');
    expect(files).toContain('node_modules/web-tree-sitter/web-tree-sitter.wasm');
    expect(files.filter((path) => /^node_modules\/tree-sitter-bash\/(src|prebuilds|bindings)\//.test(path))).toEqual([]);
    expect(files.filter((path) => /^node_modules\/(better-sqlite3-multiple-ciphers|node-pty)\/(src|deps)\//.test(path))).toEqual([]);
  });

  it('holds every package the built main process and preload load at run time', () => {
    expect([...mainLoads]).toEqual(expect.arrayContaining(['zod', 'better-sqlite3-multiple-ciphers', 'node-pty', 'tree-sitter-bash']));
    // Loaded, but not from the package.
    const notPacked: Record<string, string> = {
      electron: 'Electron itself',
      tsx: 'for the tagging thread started from its TypeScript source, which only a run from the sources does',
      typescript: "the language server's own TypeScript, looked for and done without (src/main/diagnostics/server-launch.ts)",
    };
    expect([...mainLoads].filter((name) => !(name in notPacked) && resolveIn(packages, '', name) === undefined)).toEqual([]);
  });

  it('holds none of the packages Vite bundles into the renderer, unless the main process loads them too', async () => {
    const bundled = await packagesBundledIntoRenderer();
    // What the renderer imports is in its bundle, so it needs no copy in node_modules.
    expect([...bundled]).toEqual(
      expect.arrayContaining([
        'react',
        'react-dom',
        'react-markdown',
        'highlight.js',
        '@xterm/xterm',
        '@xterm/addon-webgl',
        '@tanstack/react-virtual',
      ]),
    );
    expect(Object.keys(manifest.dependencies).filter((name) => bundled.has(name) && !mainLoads.has(name))).toEqual([]);
    const loaded = reachableFrom(packages, mainLoads);
    expect([...packages.values()].filter((copy) => bundled.has(copy.name) && !loaded.has(copy.path)).map((copy) => copy.path)).toEqual([]);
  }, 60_000);

  it("holds only packages the main process can load: package.json's dependencies and what they need", () => {
    const reachable = reachableFrom(packages, Object.keys(manifest.dependencies));
    expect(packages.size).toBeGreaterThan(0);
    expect([...packages.keys()].filter((path) => !reachable.has(path))).toEqual([]);
  });

  it('holds a package at two places only where the versions asked for rule one copy out', () => {
    const copies = secondCopies(packages);
    const said = ({ copy, outer, users }: SecondCopy): string =>
      `${copy.name} ${copy.version} for ${users.map((user) => `${user.path.replace(/^node_modules\//, '')} (${user.range})`).join(', ')}` +
      `, beside ${outer?.version ?? 'none'}`;
    expect(copies.filter((copy) => !copy.needed).map(said)).toEqual([]);
    console.info(`Packages held twice, as their users ask for versions apart:\n  ${copies.map(said).join('\n  ')}`);
  });

  it('is refused as a .deb by electron-builder without a homepage, which is why the Linux targets leave it out', async () => {
    // A project folder of its own, so that no git remote of the checkout stands in for the homepage.
    const project = join(work, 'project');
    mkdirSync(project);
    const { homepage: _homepage, ...withoutHomepage } = manifest as Record<string, unknown>;
    writeFileSync(join(project, 'package.json'), JSON.stringify(withoutHomepage));
    const electron = JSON.parse(readFileSync(join(projectRoot, 'node_modules/electron/package.json'), 'utf8')) as { version: string };
    const debConfig: Configuration = {
      ...runConfig,
      files: structuredClone(config.files),
      // Found from the project's node_modules otherwise, which this folder has none of.
      electronVersion: electron.version,
      icon: join(projectRoot, String(config.icon)),
      directories: { buildResources: join(projectRoot, 'build'), output: join(work, 'deb') },
    };
    const deb = quietly(() =>
      build({
        projectDir: project,
        prepackaged: join(work, 'dist/linux-unpacked'),
        targets: Platform.LINUX.createTarget('deb'),
        config: debConfig,
      }),
    );
    await expect(deb).rejects.toThrow(/Please specify project homepage/);
  }, 60_000);
});
