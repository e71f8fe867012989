// Worker-thread entry of generateDataset (workerRecords.ts): the generator and JSON.stringify run
// here while the calling thread builds the vectors and inserts the texts, so generation uses both
// cores. Batches of record texts go through a MessagePort; a shared counter pair says how many
// were posted and taken, so the calling thread can wait for one synchronously (Atomics.wait) and
// this thread stays at most IN_FLIGHT batches ahead.
import { workerData, type MessagePort } from 'node:worker_threads';
import { generateRecords } from './generateRecords';
import { POSTED, TAKEN, type GenerateMessage } from './workerRecords';

const BATCH_RECORDS = 1000;
const IN_FLIGHT = 8;

const { rows, seed, port, counters } = workerData as { rows: number; seed: number; port: MessagePort; counters: Int32Array };

function post(message: GenerateMessage): void {
  port.postMessage(message);
  Atomics.add(counters, POSTED, 1);
  Atomics.notify(counters, POSTED);
}

try {
  let texts: string[] = [];
  for (const record of generateRecords(rows, seed)) {
    texts.push(JSON.stringify(record));
    if (texts.length === BATCH_RECORDS) {
      // Wait while the taker is IN_FLIGHT batches behind.
      for (let posted = Atomics.load(counters, POSTED); ; ) {
        const taken = Atomics.load(counters, TAKEN);
        if (posted - taken < IN_FLIGHT) break;
        Atomics.wait(counters, TAKEN, taken, 1000);
      }
      post({ texts: texts.join('\n') }); // JSON text never holds a raw line break
      texts = [];
    }
  }
  if (texts.length > 0) post({ texts: texts.join('\n') });
  post({ done: true });
} catch (e) {
  post({ error: e instanceof Error ? e.message : String(e) });
}
