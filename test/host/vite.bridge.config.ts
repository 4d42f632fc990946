import { resolve } from 'node:path';
import { defineConfig } from 'vite';

/** Bundles the test host's WebSocket bridge into one classic script. */
export default defineConfig({
  build: {
    outDir: resolve('out/test-host'),
    emptyOutDir: true,
    lib: { entry: resolve('test/host/ws-bridge.ts'), formats: ['iife'], name: 'workbenchTestBridge', fileName: () => 'ws-bridge.js' },
  },
});
