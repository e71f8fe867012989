// Worker-thread entry of generateDataset (workerRecords.ts): generating, JSON.stringify and the
// coding of the string values run here while the calling thread builds the vectors and writes.
// The values are coded here because here they are the generator's own strings, mostly code-book
// constants whose hashes V8 has already worked out; sent as text, the calling thread had to split
// them apart and hash every one again (docs/performance.md, "The generator codes its own values").
// Shared counters keep this thread at most IN_FLIGHT batches ahead.
import { workerData, type MessagePort } from 'node:worker_threads';
import { stringHash } from '../dataset/codec/columnVector';
import { ColumnSet, HASHED_FIELDS } from '../dataset/write/columnSet';
import { RECORD_EXTRA_WORDS, recordExtras } from '../dataset/write/recordExtras';
import { StringCoder } from '../dataset/write/stringCoder';
import { FIELDS, fieldIndex } from '../../shared/fields';
import { generateShare } from './generateRecords';
import type { GeneratedRecord } from './record';
import { callerTakes, POSTED, STOP, TAKEN, type GenerateMessage } from './workerRecords';

/**
 * Batches (a chunk of generateShare's, ~64 records) this thread may be ahead of the taker: ~8,000
 * records, as 8 batches of 1,000 once were. A batch's buffers (codes ~100 KB, texts ~85 KB) stay
 * under V8's and malloc's 128 KB large-object size, in memory that is reused; batches of 1,000 took
 * fresh pages each (docs/import.md, "Memory touched once").
 */
const IN_FLIGHT = 128;

const { rows, seed, dictionaryLimit, port, counters } = workerData as {
  rows: number;
  seed: number;
  dictionaryLimit: number;
  port: MessagePort;
  counters: Int32Array;
};
const layout = new ColumnSet(1);
const stringFields = layout.stringFieldIndexes;
const numberFields = layout.numberFieldIndexes;
const coders = stringFields.map((f) => new StringCoder(dictionaryLimit, HASHED_FIELDS.has(FIELDS[f]!.name), true));
const STATE = fieldIndex('STATE');
const HHID = fieldIndex('HHID');

function post(message: GenerateMessage, transfer: ArrayBuffer[] = []): void {
  port.postMessage(message, transfer);
  Atomics.add(counters, POSTED, 1);
  Atomics.notify(counters, POSTED);
}

/** Waits while the taker is IN_FLIGHT batches behind; ends this thread when it stopped taking. */
function waitForTaker(): void {
  for (let posted = Atomics.load(counters, POSTED); ;) {
    if (Atomics.load(counters, STOP) !== 0) process.exit(0);
    const taken = Atomics.load(counters, TAKEN);
    if (posted - taken < IN_FLIGHT) break;
    Atomics.wait(counters, TAKEN, taken, 1000);
  }
}

/** A chunk's records as a batch: texts in a kept buffer, string values row by row until coded. */
class Batch {
  private count = 0;
  private textBuffer = Buffer.allocUnsafe(128 * 1024);
  private textLength = 0;
  private ends = new Uint32Array(0);
  private states: string[] = [];
  private ranks = new Uint32Array(0);
  private hhidHashes = new Uint32Array(0);
  private extras = new Uint32Array(0);
  private numbers = new Float64Array(0);
  private strings: string[] = [];

  /** Starts a batch of `size` records (the arrays before went with the last batch). */
  begin(size: number): void {
    this.count = this.textLength = 0;
    this.ends = new Uint32Array(size);
    this.states = [];
    this.ranks = new Uint32Array(size);
    this.hhidHashes = new Uint32Array(size);
    this.extras = new Uint32Array(size * RECORD_EXTRA_WORDS);
    this.numbers = new Float64Array(size * numberFields.length);
    if (this.strings.length < size * stringFields.length) this.strings = new Array<string>(size * stringFields.length).fill('');
  }

  add(record: GeneratedRecord, rank: number): void {
    const i = this.count++;
    const text = JSON.stringify(record);
    if (this.textLength + 3 * text.length > this.textBuffer.length) {
      const wider = Buffer.allocUnsafe(2 * (this.textLength + 3 * text.length));
      this.textBuffer.copy(wider, 0, 0, this.textLength);
      this.textBuffer = wider;
    }
    this.textLength += this.textBuffer.write(text, this.textLength, 'utf8');
    this.ends[i] = this.textLength;
    this.states.push(record[STATE] as string);
    this.ranks[i] = rank;
    this.hhidHashes[i] = stringHash(record[HHID] as string);
    recordExtras((f) => record[f], this.extras, i * RECORD_EXTRA_WORDS);
    const ns = stringFields.length;
    for (let k = 0, at = i * ns; k < ns; k++) this.strings[at + k] = record[stringFields[k]!] as string;
    const ni = numberFields.length;
    for (let k = 0, at = i * ni; k < ni; k++) this.numbers[at + k] = record[numberFields[k]!] as number;
  }

  /** Codes the batch's string values field by field and sends it. */
  send(): void {
    const n = this.count;
    const ns = stringFields.length;
    const codes = new Uint32Array(n * ns);
    const added: string[][] = new Array<string[]>(ns);
    const passed: number[] = [];
    for (let k = 0; k < ns; k++) {
      const at = coders[k]!.codeStrided(this.strings, k, ns, n, codes, k * n);
      if (at >= 0) passed.push(k, at);
      added[k] = coders[k]!.takeAdded();
    }
    waitForTaker();
    const text = new Uint8Array(this.textBuffer.subarray(0, this.textLength)); // a copy: the buffer is kept
    const batch = {
      count: n,
      text,
      ends: this.ends,
      states: this.states,
      ranks: this.ranks,
      hhidHashes: this.hhidHashes,
      extras: this.extras,
      codes,
      added,
      passed,
      numbers: this.numbers,
    };
    post(
      batch,
      [text, this.ends, this.ranks, this.hhidHashes, this.extras, codes, this.numbers].map((a) => a.buffer as ArrayBuffer),
    );
  }
}

try {
  const batch = new Batch();
  for (const chunk of generateShare(rows, seed, (c) => !callerTakes(c))) {
    batch.begin(chunk.length);
    for (const { record, rank } of chunk) batch.add(record, rank);
    batch.send();
  }
  post({ done: true });
} catch (e) {
  post({ error: e instanceof Error ? e.message : String(e) });
}
