// What the upgrades that change a file in place share (addPidOrder.ts: a stored PID order added;
// packVectors.ts: format 7's vector chunks packed): the file's table of contents checked, the change
// and the meta entries it sets with the new checksum in one SQLite transaction with a rollback
// journal, so a failure or a kill leaves the file as it was. The file must not be open in a running
// app (`cli upgrade` is run on a closed file).
import { AppError } from '../../../shared/errors';
import { openSqlite, type Db } from '../../sqlite';
import { tablesChecksum } from '../codec/blockCodec';
import { ChunkLayout } from '../codec/vectorChunks';
import { asDamage, datasetDamaged } from '../format/damage';
import type { StateRange } from '../format/datasetTypes';
import { checkDatasetFile } from '../format/fileCheck';

/** The open file a change works on, its table of contents checked. */
export interface FileInChange {
  db: Db;
  meta: Readonly<Record<string, string>>;
  /** In position order. */
  states: readonly StateRange[];
  layout: ChunkLayout;
  records: number;
}

/**
 * Runs `change` on the dataset file at `path` inside one transaction and sets the meta entries it
 * returns, with the checksum they make. `refusal` says why a file is not one to change (then
 * nothing is written); an error inside is the file's damage, `reading` what failed to read.
 * Returns the file's records.
 */
export function changeInPlace(
  path: string,
  refusal: (meta: Readonly<Record<string, string>>) => AppError | null,
  reading: string,
  change: (file: FileInChange) => Record<string, string>,
): number {
  checkDatasetFile(path);
  const db = openSqlite(path, { fileMustExist: true });
  try {
    db.pragma('journal_mode = DELETE');
    db.pragma('synchronous = FULL');
    const meta = Object.fromEntries(db.prepare('SELECT key, value FROM meta').raw().all() as [string, string][]);
    const refused = refusal(meta);
    if (refused) throw refused;
    const states = (db.prepare('SELECT state, first, count FROM states').all() as StateRange[]).sort((a, b) => a.first - b.first);
    if (meta.checksum !== tablesChecksum(meta, states))
      throw datasetDamaged(path, 'its table of contents (meta and state ranges) fails its checksum');
    const records = Number(meta.records);
    const layout = ChunkLayout.fromMeta(meta.vector_chunk);
    if (!layout || !Number.isSafeInteger(records) || states.reduce((n, r) => n + r.count, 0) !== records)
      throw datasetDamaged(path, 'its record count or chunk size does not read');
    db.exec('BEGIN IMMEDIATE');
    const entries = change({ db, meta, states, layout, records });
    const put = db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)');
    for (const [key, value] of Object.entries(entries)) put.run(key, value);
    put.run('checksum', tablesChecksum({ ...meta, ...entries }, states));
    db.exec('COMMIT');
    return records;
  } catch (e) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw asDamage(e, path, reading);
  } finally {
    db.close();
  }
}

/** The meta of the dataset file at `path`, read and the file closed again; a SQLite file without one is not a dataset. */
export function metaOfFile(path: string): Record<string, string> {
  checkDatasetFile(path);
  const db = openSqlite(path, { readonly: true, fileMustExist: true });
  try {
    return Object.fromEntries(db.prepare('SELECT key, value FROM meta').raw().all() as [string, string][]);
  } catch {
    throw new AppError('unavailable', `The file ${path} is not an Audience Desk dataset.`);
  } finally {
    db.close();
  }
}
