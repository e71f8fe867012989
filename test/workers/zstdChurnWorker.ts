// A worker that builds and closes zstd streams without pause, as a codec worker does at load and at
// work (stopWorker.test.ts): terminated at a bad moment, Node aborts the whole process.
import { parentPort } from 'node:worker_threads';
import { createZstdDecompress } from 'node:zlib';
import { stopWhenAsked } from '../../src/core/workers/stopWorker';

const port = parentPort!;
stopWhenAsked(port);
const dictionary = Buffer.alloc(256, 7);
let rounds = 0;
const churn = (): void => {
  for (let i = 0; i < 20; i++) {
    const stream = createZstdDecompress({ dictionary });
    stream.on('error', () => undefined);
    stream.close();
  }
  if (++rounds === 1) port.postMessage('churning');
  setImmediate(churn);
};
churn();
