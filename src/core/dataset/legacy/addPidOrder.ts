// Adds the stored PID order (format/pidRanks.ts, table pid_order) to a ranked file of the current
// format written before the order was stored: its records, vectors and ranks stay byte for byte, the
// order is built from the ranks state by state, and the table, the meta entry naming it and the new
// checksum go in in one transaction (inPlaceChange.ts).
import { AppError } from '../../../shared/errors';
import { datasetDamaged } from '../format/damage';
import { PID_ORDER_KEY, PidRankReader, PidRankWriter, RANKED_ORDER, RECORD_ORDER_KEY, STORED_PID_ORDER } from '../format/pidRanks';
import { DATASET_FORMAT_VERSION } from '../format/schema';
import { changeInPlace, metaOfFile } from './inPlaceChange';

/** Whether a file's meta says it is of the current format, ranked, and without a stored PID order. */
export function lacksStoredPidOrder(meta: Readonly<Record<string, string>>): boolean {
  return meta.format_version === DATASET_FORMAT_VERSION && meta[RECORD_ORDER_KEY] === RANKED_ORDER && meta[PID_ORDER_KEY] === undefined;
}

/** Adds the stored PID order to the file at `path` (lacksStoredPidOrder()); `onState` after each state. Returns the records. */
export function addStoredPidOrder(path: string, onState?: (done: number, total: number) => void): number {
  const refusal = (meta: Readonly<Record<string, string>>) =>
    lacksStoredPidOrder(meta)
      ? null
      : new AppError('invalid_request', `The dataset file ${path} has a stored PID order already, or needs none.`);
  return changeInPlace(path, refusal, 'its PID ranks do not read', ({ db, states, layout, records }) => {
    const ranks = new PidRankReader(db, path, layout, records, true);
    db.exec('CREATE TABLE pid_order (chunk INTEGER PRIMARY KEY, crc INTEGER NOT NULL, data BLOB NOT NULL)');
    const insert = db.prepare('INSERT INTO pid_order (chunk, crc, data) VALUES (?, ?, ?)');
    // The writer checks each state's ranks are a permutation again; the rank chunks it makes are the stored ones, dropped.
    const writer = new PidRankWriter(
      layout,
      () => undefined,
      (chunk, crc, data) => insert.run(chunk, crc, data),
    );
    let done = 0;
    for (const range of states) {
      const stateRanks = ranks.ranks(range.first, range.count)!;
      try {
        for (let k = 0; k < stateRanks.length; k++) writer.add(stateRanks[k]!, k === 0);
      } catch (e) {
        throw datasetDamaged(path, `its PID ranks of ${range.state} are not a permutation of its records (${(e as Error).message})`);
      }
      done += range.count;
      onState?.(done, records);
    }
    try {
      writer.finish();
    } catch (e) {
      throw datasetDamaged(path, `its PID ranks are not a permutation of a state's records (${(e as Error).message})`);
    }
    return { [PID_ORDER_KEY]: STORED_PID_ORDER };
  });
}

/** Whether the dataset file at `path` is current but lacks its stored PID order (lacksStoredPidOrder()). */
export function fileLacksStoredPidOrder(path: string): boolean {
  return lacksStoredPidOrder(metaOfFile(path));
}
