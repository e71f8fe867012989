// Worker-thread entry of generateDataset (workerRecords.ts): generating and JSON.stringify run here
// while the calling thread builds the vectors and writes. Each batch carries the texts and the
// values apart (strings joined, integers and coordinates in a transferred Float64Array) so the caller need not
// parse them again; shared counters keep this thread at most IN_FLIGHT batches ahead.
import { workerData, type MessagePort } from 'node:worker_threads';
import { ColumnSet } from '../dataset/write/columnSet';
import { generateStored } from './generateRecords';
import { POSTED, SEPARATOR, STOP, TAKEN, type GenerateMessage } from './workerRecords';

/**
 * Records a batch: its joined texts (~1.3 KB a record) stay under V8's 128 KB large-object size, in
 * memory the young generation reuses; batches of 1,000 took fresh pages each (docs/import.md,
 * "Memory touched once"). IN_FLIGHT keeps the ~8,000 records ahead that 8 batches of 1,000 did.
 */
const BATCH_RECORDS = 64;
const IN_FLIGHT = 128;

const { rows, seed, port, counters } = workerData as { rows: number; seed: number; port: MessagePort; counters: Int32Array };
const layout = new ColumnSet(1);
const stringFields = layout.stringFieldIndexes;
const numberFields = layout.numberFieldIndexes;

function post(message: GenerateMessage, transfer: ArrayBuffer[] = []): void {
  port.postMessage(message, transfer);
  Atomics.add(counters, POSTED, 1);
  Atomics.notify(counters, POSTED);
}

try {
  let texts: string[] = [];
  let strings: string[] = [];
  let numbers = new Float64Array(BATCH_RECORDS * numberFields.length);
  let ranks = new Uint32Array(BATCH_RECORDS);
  const values: string[] = new Array<string>(stringFields.length);
  const send = (): void => {
    // Wait while the taker is IN_FLIGHT batches behind; end when it stopped taking.
    for (let posted = Atomics.load(counters, POSTED); ;) {
      if (Atomics.load(counters, STOP) !== 0) process.exit(0);
      const taken = Atomics.load(counters, TAKEN);
      if (posted - taken < IN_FLIGHT) break;
      Atomics.wait(counters, TAKEN, taken, 1000);
    }
    // JSON text never holds a raw line break.
    post({ texts: texts.join('\n'), strings: strings.join('\n'), numbers, ranks }, [
      numbers.buffer as ArrayBuffer,
      ranks.buffer as ArrayBuffer,
    ]);
    texts = [];
    strings = [];
    numbers = new Float64Array(BATCH_RECORDS * numberFields.length);
    ranks = new Uint32Array(BATCH_RECORDS);
  };
  for (const { record, rank } of generateStored(rows, seed)) {
    ranks[texts.length] = rank;
    const at = texts.length * numberFields.length;
    texts.push(JSON.stringify(record));
    for (let k = 0; k < stringFields.length; k++) values[k] = record[stringFields[k]!] as string;
    strings.push(values.join(SEPARATOR));
    for (let k = 0; k < numberFields.length; k++) numbers[at + k] = record[numberFields[k]!] as number;
    if (texts.length === BATCH_RECORDS) send();
  }
  if (texts.length > 0) send();
  post({ done: true });
} catch (e) {
  post({ error: e instanceof Error ? e.message : String(e) });
}
