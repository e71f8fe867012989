// The dataset generator: believable US person records, deterministic (the same rows and seed give
// byte-identical records; PIDs say nothing of household or place, generateRecords.ts), written in
// storage order (a state's households by ZIP) with each record's PID rank, so the file takes a third
// less room than in PID order (docs/dataset-format.md, "Record order"). Records are made on a worker
// thread while this one builds the vectors and writes (workerRecords.ts).
import { DatasetWriter } from '../dataset/write/datasetWriter';
import { ChunkLayout } from '../dataset/codec/vectorChunks';
import { FIELDS, fieldIndex } from '../../shared/fields';
import { generateStored } from './generateRecords';
import { SEPARATOR, workerTexts } from './workerRecords';

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
    const batches = workerTexts(rows, seed);
    if (batches) {
      // The vectors from the values the worker sent apart: no record is parsed again here.
      const columns = writer.newColumnSet();
      const stringFields = columns.stringFieldIndexes;
      const state = stringFields.indexOf(fieldIndex('STATE'));
      const pid = stringFields.indexOf(fieldIndex('PID'));
      // Where each catalog field's value sits among a record's strings (-1: not a string field).
      const at = FIELDS.map((_, i) => stringFields.indexOf(i));
      const numbers = columns.numberFieldIndexes.length;
      for (const batch of batches) {
        const texts = batch.texts.split('\n');
        const strings = batch.strings.split('\n');
        if (strings.length !== texts.length) throw new Error('The generator worker sent a batch that does not add up.');
        for (let i = 0; i < texts.length; i++) {
          const values = strings[i]!.split(SEPARATOR);
          if (values.length !== stringFields.length) throw new Error('The generator worker sent a record that does not add up.');
          writer.appendText(values[state]!, values[pid]!, texts[i]!, (f) => values[at[f]!], batch.ranks[i]);
          columns.pushParts(values, batch.numbers, i * numbers);
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
