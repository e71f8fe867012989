// Records appended to a dataset writer the way the import's write phase appends them: each as its
// UTF-8 text with what its reader works out besides (src/core/dataset/write/recordExtras.ts) and its
// PID rank in its state. For tests that hold that path to the writer's own from the records' values.
import { stringHash } from '../../src/core/dataset/codec/columnVector';
import type { RecordValues } from '../../src/core/dataset/codec/recordFormat';
import type { DatasetWriter } from '../../src/core/dataset/write/datasetWriter';
import { RECORD_EXTRA_WORDS, recordExtras } from '../../src/core/dataset/write/recordExtras';
import { fieldIndex } from '../../src/shared/fields';

const STATE = fieldIndex('STATE');
const PID = fieldIndex('PID');
const HHID = fieldIndex('HHID');

/** `records` come state by state (the writer's rule); ranks follow the PIDs within each state. */
export function appendAsImported(writer: DatasetWriter, records: readonly RecordValues[]): void {
  const rankOf = new Map<string, number>();
  for (const state of new Set(records.map((r) => r[STATE] as string)))
    records
      .filter((r) => r[STATE] === state)
      .map((r) => r[PID] as string)
      .sort()
      .forEach((pid, rank) => rankOf.set(`${state} ${pid}`, rank));
  const extras = new Uint32Array(RECORD_EXTRA_WORDS);
  for (const r of records) {
    const state = r[STATE] as string;
    recordExtras((i) => r[i], extras, 0);
    const bytes = Buffer.from(JSON.stringify(r));
    const rank = rankOf.get(`${state} ${r[PID] as string}`)!;
    writer.appendBytes({ state, bytes, start: 0, end: bytes.length, rank, hhidHash: stringHash(r[HHID] as string), extras, extrasAt: 0 });
  }
}
