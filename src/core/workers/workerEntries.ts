// Every worker thread module the core starts (startWorker('<name>', …)), by the name a bundle emits
// it under: the desktop app's bundle (electron.vite.config.ts) and the CLI's (cli.vite.config.ts) each
// make them entries of their own. test/packaging checks that each worker the sources start is in both.
export const WORKER_ENTRIES = {
  readWorker: 'src/core/import/read/readWorker.ts',
  orderWorker: 'src/core/import/order/orderWorker.ts',
  blockWorker: 'src/core/dataset/write/blockWorker.ts',
  verifyWorker: 'src/core/dataset/verify/verifyWorker.ts',
  scanWorker: 'src/core/query/scanWorker.ts',
  pidOrderWorker: 'src/core/query/pidOrderWorker.ts',
  slotWriterWorker: 'src/core/query/slotWriterWorker.ts',
  nativeHeapWorker: 'src/core/query/nativeHeapWorker.ts',
  fileReadAheadWorker: 'src/core/query/fileReadAheadWorker.ts',
  /** The generator's: the desktop app does not generate datasets, so only the CLI's bundle has it. */
  generateWorker: 'src/core/generate/generateWorker.ts',
} as const;
