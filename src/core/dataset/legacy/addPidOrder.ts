// Adds the stored PID order (format/pidRanks.ts, table pid_order) to a ranked file of the current
// format written before the order was stored: its records, vectors and ranks stay byte for byte, the
// order is built from the ranks state by state, and the table, the meta entry naming it and the new
// checksum go in in one SQLite transaction with a rollback journal, so a failure or a kill leaves the
// file as it was. The file must not be open in a running app (`cli upgrade` is run on a closed file).
import { AppError } from '../../../shared/errors';
import { openSqlite } from '../../sqlite';
import { tablesChecksum } from '../codec/blockCodec';
import { ChunkLayout } from '../codec/vectorChunks';
import { asDamage, datasetDamaged } from '../format/damage';
import type { StateRange } from '../format/datasetTypes';
import { checkDatasetFile } from '../format/fileCheck';
import { PID_ORDER_KEY, PidRankReader, PidRankWriter, RANKED_ORDER, RECORD_ORDER_KEY, STORED_PID_ORDER } from '../format/pidRanks';
import { DATASET_FORMAT_VERSION } from '../format/schema';

/** Whether a file's meta says it is of the current format, ranked, and without a stored PID order. */
export function lacksStoredPidOrder(meta: Readonly<Record<string, string>>): boolean {
  return meta.format_version === DATASET_FORMAT_VERSION && meta[RECORD_ORDER_KEY] === RANKED_ORDER && meta[PID_ORDER_KEY] === undefined;
}

/** Adds the stored PID order to the file at `path` (lacksStoredPidOrder()); `onState` after each state. Returns the records. */
export function addStoredPidOrder(path: string, onState?: (done: number, total: number) => void): number {
  checkDatasetFile(path);
  const db = openSqlite(path, { fileMustExist: true });
  try {
    db.pragma('journal_mode = DELETE');
    db.pragma('synchronous = FULL');
    const meta = Object.fromEntries(db.prepare('SELECT key, value FROM meta').raw().all() as [string, string][]);
    if (!lacksStoredPidOrder(meta))
      throw new AppError('invalid_request', `The dataset file ${path} has a stored PID order already, or needs none.`);
    const states = (db.prepare('SELECT state, first, count FROM states').all() as StateRange[]).sort((a, b) => a.first - b.first);
    if (meta.checksum !== tablesChecksum(meta, states))
      throw datasetDamaged(path, 'its table of contents (meta and state ranges) fails its checksum');
    const records = Number(meta.records);
    const layout = ChunkLayout.fromMeta(meta.vector_chunk);
    if (!layout || states.reduce((n, r) => n + r.count, 0) !== records)
      throw datasetDamaged(path, 'its record count or chunk size does not read');
    const ranks = new PidRankReader(db, path, layout, records, true);
    db.exec('BEGIN IMMEDIATE');
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
    const updated = { ...meta, [PID_ORDER_KEY]: STORED_PID_ORDER };
    const put = db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)');
    put.run(PID_ORDER_KEY, STORED_PID_ORDER);
    put.run('checksum', tablesChecksum(updated, states));
    db.exec('COMMIT');
    return records;
  } catch (e) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw asDamage(e, path, 'its PID ranks do not read');
  } finally {
    db.close();
  }
}

/** Whether the dataset file at `path` is current but lacks its stored PID order (lacksStoredPidOrder()). */
export function fileLacksStoredPidOrder(path: string): boolean {
  checkDatasetFile(path);
  const db = openSqlite(path, { readonly: true, fileMustExist: true });
  try {
    return lacksStoredPidOrder(Object.fromEntries(db.prepare('SELECT key, value FROM meta').raw().all() as [string, string][]));
  } finally {
    db.close();
  }
}
