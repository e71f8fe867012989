// Shared by the import tests: temp folders, fixture paths, and reading back what an import wrote
// (records of a dataset file, its integrity, the rejects file) with real SQLite and csv-parse.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { openDatasetSql } from '../support/datasetSql';
import { parse } from 'csv-parse/sync';
import { Dataset } from '../../src/core/dataset/read/dataset';
import { CSV_HEADER, type RecordValues } from '../../src/core/dataset/codec/recordFormat';
import { recordToCsvLine } from '../support/recordReference';
import { FIELDS, fieldIndex } from '../../src/shared/fields';

export const FIXTURES = resolve(__dirname, '../fixtures/import');
export const fixture = (name: string): string => join(FIXTURES, name);

/** Every vendor-file fixture: each delimiter, gzip, a BOM, mixed case, missing and extra columns, bad rows. */
export const ALL_FIXTURES = [
  'comma-bom-crlf.csv',
  'pipe-gzipped.dat',
  'tab-mixed-case.tsv',
  'missing-and-extra.csv',
  'bad-rows.csv',
  'unclosed-quote.csv',
].map(fixture);

export function tempDir(prefix = 'audience-desk-import-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Every record of a dataset file, in position order, as value arrays. */
export function readRecords(path: string): RecordValues[] {
  const d = Dataset.open(path);
  try {
    return d.fullRows(Array.from({ length: d.records }, (_, i) => i));
  } finally {
    d.close();
  }
}

/** One record by PID, as an object keyed by field name. */
export function recordsByPid(path: string): Map<string, Record<string, string | number>> {
  const pid = fieldIndex('PID');
  return new Map(
    readRecords(path).map((values) => [values[pid] as string, Object.fromEntries(FIELDS.map((f, i) => [f.name, values[i]!]))]),
  );
}

export function integrity(path: string): { check: string; records: number } {
  const db = openDatasetSql(path);
  try {
    const check = db.pragma('integrity_check', { simple: true }) as string;
    const records = db.prepare('SELECT count(*) FROM records').pluck().get() as number;
    return { check, records };
  } finally {
    db.close();
  }
}

export interface RejectLine {
  file: string;
  line: string;
  field: string;
  reason: string;
  row: string;
}

export function readRejects(path: string): RejectLine[] {
  return parse(readFileSync(path, 'utf8'), { columns: true, record_delimiter: '\r\n' }) as RejectLine[];
}

/** Files in a folder, for "nothing left behind" checks. */
export function listDir(dir: string): string[] {
  return readdirSync(dir).sort();
}

/** Writes records as the project's own CSV export does (header = every field, CRLF). */
export function writeCsv(path: string, records: Iterable<RecordValues>): void {
  const lines = [CSV_HEADER];
  for (const r of records) lines.push(recordToCsvLine(r));
  writeFileSync(path, lines.join('\r\n') + '\r\n');
}

/** A valid 32-hex PID from a number, e.g. for synthetic rows. */
export const pidOf = (n: number): string => n.toString(16).toUpperCase().padStart(32, '0');

/** Every table of a dataset file but meta's creation time, as plain values: two imports that must write the same file compare equal. */
export function dumpDataset(path: string): unknown {
  const db = openDatasetSql(path);
  try {
    return {
      records: db.prepare('SELECT _pos, record FROM records ORDER BY _pos').raw().all(),
      columns: db.prepare('SELECT name, encoding, kind, dict FROM columns ORDER BY name').raw().all(),
      vectors: db.prepare('SELECT name, chunk, data FROM vector_chunks ORDER BY name, chunk').raw().all(),
      states: db.prepare('SELECT * FROM states ORDER BY state').raw().all(),
    };
  } finally {
    db.close();
  }
}
