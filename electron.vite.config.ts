// Three bundles: the Electron main process (which hosts the core and the loopback server), the
// sandboxed preload bridge, and the Vue renderer. Dependencies of main stay external (node_modules,
// with better-sqlite3's native binary unpacked from the asar by electron-builder).
import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import vue from '@vitejs/plugin-vue';
import { WORKER_ENTRIES } from './src/core/workers/workerEntries';

// The desktop app does not generate datasets: the generator's worker stays out of its bundle.
const { generateWorker: _generator, ...desktopWorkers } = WORKER_ENTRIES;

export default defineConfig({
  main: {
    // Every worker is an entry of its own: a worker thread loads a file, not a chunk, and
    // workers/startWorker.ts looks for `<name>.js` beside its caller's chunk (index.js).
    // test/packaging checks that each startWorker('<name>') of src/ has one (but the generator's:
    // the desktop app does not generate datasets).
    build: {
      rollupOptions: {
        input: {
          index: resolve('src/main/index.ts'),
          ...Object.fromEntries(Object.entries(desktopWorkers).map(([name, path]) => [name, resolve(path)])),
        },
      },
    },
  },
  preload: {
    // A sandboxed preload must be one CommonJS file with nothing left to require but electron.
    build: {
      externalizeDeps: false,
      rollupOptions: { input: { index: resolve('src/preload/index.ts') }, output: { format: 'cjs', entryFileNames: '[name].cjs' } },
    },
  },
  renderer: {
    root: resolve('src/renderer'),
    build: { rollupOptions: { input: { index: resolve('src/renderer/index.html') } } },
    plugins: [vue()],
  },
});
