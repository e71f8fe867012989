// `cli upgrade --db FILE`: rewrites a file of an older format (legacyFormats.ts) in the current one,
// once, so that the reader knows one format. Its records are read in stored order (format 3's rows,
// the record blocks of formats 4 to 6, each block checked against its checksum) and written again by
// the current writer, which builds every vector, list key and household list afresh; a format 6
// file in its writer's own order keeps that order, with its PID ranks. The new file replaces the old
// only once complete (DatasetWriter publishes it atomically): a failure or a kill leaves the old file
// as it was. Nothing of the old file's format survives but its descriptive meta (seed, source, …).
import { AppError } from '../../../shared/errors';
import { fieldIndex } from '../../../shared/fields';
import { openSqlite, type Db } from '../../sqlite';
import { tablesChecksum } from '../codec/blockCodec';
import type { RecordValues } from '../codec/recordFormat';
import { ChunkLayout } from '../codec/vectorChunks';
import { asDamage, datasetDamaged } from '../format/damage';
import type { StateRange } from '../format/datasetTypes';
import { checkDatasetFile } from '../format/fileCheck';
import { PID_ORDER_KEY, PidRankReader, RANKED_ORDER, RECORD_ORDER_KEY } from '../format/pidRanks';
import { DATASET_FORMAT_VERSION } from '../format/schema';
import { BlockRecords } from '../read/blockRecords';
import { datasetIdentity } from '../read/pieceFetch';
import type { RecordSource } from '../read/recordSource';
import { DatasetWriter } from '../write/datasetWriter';
import { formatRefusal, LEGACY_FORMATS, RANKED_FORMATS, TEXT_ROWS_FORMAT } from './legacyFormats';
import { TextRecords } from './textRecords';

/** Meta entries that describe how a file is stored: the writer sets them anew. */
const FORMAT_KEYS = new Set([
  'format_version',
  'records',
  'block_records',
  'record_level',
  'vector_chunk',
  'created_at',
  'checksum',
  'hhid_collisions',
  'hhid_splits',
  'list_keys',
  RECORD_ORDER_KEY,
  PID_ORDER_KEY,
]);

const STATE_INDEX = fieldIndex('STATE');
/** Records read at once. */
const BATCH = 4096;

export interface UpgradeResult {
  path: string;
  /** The format the file had. */
  from: string;
  records: number;
}

/**
 * Upgrades the dataset file at `path` in place. Refuses a file already current, of a format it does
 * not know, or damaged, in one sentence naming it; the file is then untouched.
 */
export function upgradeDataset(path: string, onProgress?: (done: number, total: number) => void): UpgradeResult {
  const { db, meta } = openWithMeta(path);
  let writer: DatasetWriter | undefined;
  try {
    const version = meta.format_version;
    if (version === DATASET_FORMAT_VERSION)
      throw new AppError('invalid_request', `The dataset file ${path} is already in format ${version}: nothing to upgrade.`);
    if (version === undefined || !LEGACY_FORMATS.includes(version)) throw formatRefusal(path, version);
    const states = (db.prepare('SELECT state, first, count FROM states').all() as StateRange[]).sort((a, b) => a.first - b.first);
    // Format 3 had no checksums; from format 4 on, the table of contents has one.
    if (version !== TEXT_ROWS_FORMAT && meta.checksum !== tablesChecksum(meta, states))
      throw datasetDamaged(path, 'its table of contents (meta and state ranges) fails its checksum');
    const records = Number(meta.records);
    if (!Number.isSafeInteger(records) || records < 0 || states.reduce((n, r) => n + r.count, 0) !== records)
      throw datasetDamaged(path, 'its record count does not match its states');
    const source: RecordSource =
      version === TEXT_ROWS_FORMAT
        ? new TextRecords(db, path, records)
        : new BlockRecords(db, path, records, Number(meta.block_records), datasetIdentity(meta));
    const ranked = RANKED_FORMATS.includes(version) && meta[RECORD_ORDER_KEY] === RANKED_ORDER;
    const layout = ChunkLayout.fromMeta(meta.vector_chunk);
    const ranks = ranked ? new PidRankReader(db, path, layout, records, true) : null;
    const described = Object.fromEntries(Object.entries(meta).filter(([k]) => !FORMAT_KEYS.has(k)));
    const level = Number(meta.record_level);
    writer = new DatasetWriter(path, { ...described, upgraded_from: version }, undefined, layout ?? undefined, level || undefined);
    let done = 0;
    for (const range of states) {
      const stateRanks = ranks?.ranks(range.first, range.count) ?? null;
      for (let at = 0; at < range.count; at += BATCH) {
        const positions = Uint32Array.from({ length: Math.min(BATCH, range.count - at) }, (_, k) => range.first + at + k);
        const texts = source.texts(positions);
        texts.forEach((text, k) => {
          const values = JSON.parse(text) as RecordValues;
          if (values[STATE_INDEX] !== range.state) throw datasetDamaged(path, `a record of ${range.state} names another state`);
          writer!.append(values, stateRanks ? stateRanks[at + k] : undefined);
        });
        done += positions.length;
        onProgress?.(done, records);
      }
    }
    // Every record is read: the old file can close before the new one replaces it.
    if (source instanceof BlockRecords) source.close();
    db.close();
    const result = writer.finish();
    return { path, from: version, records: result.records };
  } catch (e) {
    writer?.abort();
    if (db.open) db.close();
    throw asDamage(e, path, 'its records do not read');
  }
}

/** The file opened read-only, with its meta; a SQLite file without meta is not a dataset. */
function openWithMeta(path: string): { db: Db; meta: Record<string, string> } {
  checkDatasetFile(path);
  let db: Db | undefined;
  try {
    db = openSqlite(path, { readonly: true, fileMustExist: true });
    const meta = Object.fromEntries(db.prepare('SELECT key, value FROM meta').raw().all() as [string, string][]);
    return { db, meta };
  } catch (e) {
    db?.close();
    if (e instanceof AppError) throw e;
    throw new AppError('unavailable', `The file ${path} is not an Audience Desk dataset.`);
  }
}
