// The headless CLI as plain JavaScript (out/cli/index.js), so that `node out/cli/index.js` and
// the benches that time the CLI run what a shipped tool runs, not tsx compiling TypeScript in the
// process and again in each worker thread (~1.5 CPU-seconds of a 200,000-row import). Every worker
// is an entry of its own beside index.js, and shared chunks stay in the same folder: a worker is
// looked for beside the chunk that starts it (src/core/workers/startWorker.ts). out/cli sits as
// deep as src/cli, so the paths the sources find from import.meta.url (resources/, out/renderer/)
// stay right. Dependencies stay external (node_modules), as in the desktop app's main bundle.
import { resolve } from 'node:path';
import { defineConfig } from 'vite';
import { WORKER_ENTRIES } from './src/core/workers/workerEntries';

const entries = { index: 'src/cli/index.ts', ...WORKER_ENTRIES };

export default defineConfig({
  build: {
    ssr: true,
    outDir: 'out/cli',
    emptyOutDir: true,
    target: 'node22',
    minify: false,
    rollupOptions: {
      input: Object.fromEntries(Object.entries(entries).map(([name, path]) => [name, resolve(path)])),
      output: { format: 'esm', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js' },
    },
  },
});
