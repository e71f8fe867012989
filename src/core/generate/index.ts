// The dataset generator: believable US person records, deterministic (the same rows and seed give
// byte-identical records; PIDs say nothing of household or place, generateRecords.ts), written in
// storage order (a state's households by ZIP) with each record's PID rank, so the file takes a third
// less room than in PID order (docs/dataset-format.md, "Record order"). Most records are made on a
// worker thread, which also codes their values; this one makes every third chunk of them, builds the
// vectors and writes (workerRecords.ts).
import { DatasetWriter } from '../dataset/write/datasetWriter';
import { ChunkLayout } from '../dataset/codec/vectorChunks';
import { generateStored } from './generateRecords';
import { DICTIONARY_LIMIT } from '../dataset/write/columnSet';
import { RECORD_EXTRA_WORDS, type RecordBytes } from '../dataset/write/recordExtras';
import { workerChunks } from './workerRecords';
import { fieldIndex } from '../../shared/fields';

export { AGE_REFERENCE } from './people';
export { generateRecords, generateStored } from './generateRecords';
export type { GeneratedRecord } from './record';

/** Bumped whenever the same rows and seed would give different records (stored in the dataset's meta). */
export const GENERATOR_VERSION = '4';

export interface GenerateOptions {
  rows: number;
  seed: number;
  out: string;
  onProgress?: (done: number) => void;
  /** Passed to DatasetWriter (distinct values past which a string field is stored as hashes). */
  dictionaryLimit?: number;
  /** Passed to DatasetWriter (positions a vector chunk holds; tests lower it). */
  vectorChunk?: number;
  /** Passed to DatasetWriter (zstd level of the record blocks). */
  recordLevel?: number;
}

const PROGRESS_EVERY = 10_000;
const STATE = fieldIndex('STATE');

/** Generates `rows` records into a new dataset file at `out` (atomically, via DatasetWriter). */
export function generateDataset({ rows, seed, out, onProgress, dictionaryLimit, vectorChunk, recordLevel }: GenerateOptions): {
  records: number;
  seconds: number;
} {
  const started = performance.now();
  const writer = new DatasetWriter(
    out,
    { generator: 'audience-desk', generator_version: GENERATOR_VERSION, seed: String(seed), rows: String(rows) },
    dictionaryLimit,
    vectorChunk === undefined ? undefined : new ChunkLayout(vectorChunk),
    recordLevel,
  );
  try {
    let done = 0;
    let finished: { records: number };
    const chunks = workerChunks(rows, seed, dictionaryLimit ?? DICTIONARY_LIMIT);
    if (chunks) {
      // The vectors from the codes the worker sent, and from the values of the chunks made here.
      const columns = writer.newColumnSet();
      const record: RecordBytes = {
        state: '',
        bytes: new Uint8Array(0),
        start: 0,
        end: 0,
        rank: 0,
        hhidHash: 0,
        extras: new Uint32Array(0),
        extrasAt: 0,
      };
      for (const chunk of chunks) {
        if ('records' in chunk) {
          // A chunk this thread made: its values coded here, by the column set's own coders.
          for (const { record: values, rank } of chunk.records) {
            writer.appendText(values[STATE] as string, null, JSON.stringify(values), (f) => values[f], rank);
            columns.push(values);
            if (++done % PROGRESS_EVERY === 0) onProgress?.(done);
          }
          continue;
        }
        const { batch } = chunk;
        columns.pushCoded(batch.codes, batch.count, batch.added, batch.passed, batch.numbers);
        record.bytes = batch.text;
        record.extras = batch.extras;
        for (let i = 0; i < batch.count; i++) {
          record.state = batch.states[i]!;
          record.start = i === 0 ? 0 : batch.ends[i - 1]!;
          record.end = batch.ends[i]!;
          record.rank = batch.ranks[i]!;
          record.hhidHash = batch.hhidHashes[i]!;
          record.extrasAt = i * RECORD_EXTRA_WORDS;
          writer.appendBytes(record);
          if (++done % PROGRESS_EVERY === 0) onProgress?.(done);
        }
      }
      finished = writer.finish(columns.finished());
    } else {
      for (const { record, rank } of generateStored(rows, seed)) {
        writer.append(record, rank);
        if (++done % PROGRESS_EVERY === 0) onProgress?.(done);
      }
      finished = writer.finish();
    }
    const { records } = finished;
    if (done % PROGRESS_EVERY !== 0) onProgress?.(done);
    return { records, seconds: (performance.now() - started) / 1000 };
  } catch (error) {
    writer.abort();
    throw error;
  }
}
