// The reference engine: DuckDB in the same process, loaded with the same records (from CSV the
// project's own record format writes), answering the same workload with the equivalent SQL.
// Up to a few million records DuckDB holds them in memory. Past that, 392 columns do not fit in
// this machine's RAM uncompressed, so DuckDB keeps them in a persistent database file
// (compressed, with a memory limit), loaded once and reused by later runs: still every record and
// every column, only on disk (the OS page cache holds what fits).
import { createWriteStream, existsSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { Dataset } from '../src/core/dataset/read/dataset';
import { CSV_HEADER, storedRecordToCsvLine } from '../src/core/dataset/codec/recordFormat';
import { FIELDS, fieldByName } from '../src/shared/fields';
import type { Filters } from './workload';

const DUCK_TYPE = { string: 'VARCHAR', integer: 'INTEGER', number: 'DOUBLE' } as const;
/** Records a CSV file holds before DuckDB reads it and it is deleted: bounds the disk it takes. */
const CSV_CHUNK_RECORDS = 1_000_000;

async function writeCsv(dataset: Dataset, path: string, from: number, to: number): Promise<void> {
  const out = createWriteStream(path);
  out.write(CSV_HEADER + '\n');
  for (let first = from; first < to; first += 10_000) {
    const positions = Array.from({ length: Math.min(10_000, to - first) }, (_, i) => first + i);
    const chunk = dataset.recordTexts(positions).map(storedRecordToCsvLine).join('\n') + '\n';
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

export interface DuckStorage {
  /** 'memory' (as at 1M) or the path of a persistent DuckDB database file. */
  where: 'memory' | string;
  /** DuckDB's memory_limit, e.g. '6GB' (a shared machine); DuckDB's default when absent. */
  memoryLimit?: string;
}

const literal = (v: string) => `'${v.replace(/'/g, "''")}'`;

/** decisions.md's filter semantics as DuckDB SQL (benchmark input is ours, so literals are safe). */
export function whereSql(state: string, filters: Filters): string {
  const clauses = [`STATE = ${literal(state)}`];
  for (const [name, values] of filters) {
    const def = fieldByName(name)!;
    const col = `"${def.name}"`;
    if (def.type === 'string') {
      clauses.push(`${col} IN (${values.map((v) => literal(String(v).toUpperCase())).join(', ')})`);
      continue;
    }
    const ors = values.map((raw) => {
      const v = String(raw);
      const band = /^(\d+)-(\d+)$/.exec(v);
      if (band) return `${col} BETWEEN ${band[1]} AND ${band[2]}`;
      const atLeast = /^(\d+)\+$/.exec(v);
      return atLeast ? `${col} >= ${atLeast[1]}` : `${col} = ${Number(v)}`;
    });
    clauses.push(`(${ors.join(' OR ')})`);
  }
  return clauses.join(' AND ');
}

export class DuckReference {
  private constructor(private readonly connection: DuckDBConnection) {}

  static async load(
    dataset: Dataset,
    csvPath: string,
    storage: DuckStorage = { where: 'memory' },
  ): Promise<{ duck: DuckReference; seconds: number; reused: boolean }> {
    const started = performance.now();
    const onDisk = storage.where !== 'memory';
    const options: Record<string, string> = storage.memoryLimit ? { memory_limit: storage.memoryLimit } : {};
    const instance = await DuckDBInstance.create(onDisk ? storage.where : ':memory:', options);
    const connection = await instance.connect();
    if (onDisk && existsSync(storage.where)) {
      try {
        const reader = await connection.runAndReadAll('SELECT count(*) FROM people');
        if (Number(reader.getRows()[0]![0]) === dataset.records)
          return { duck: new DuckReference(connection), seconds: (performance.now() - started) / 1000, reused: true };
      } catch {
        // no complete table yet: load it below
      }
      await connection.run('DROP TABLE IF EXISTS people');
    }
    const columns = FIELDS.map((f) => `'${f.name}': '${DUCK_TYPE[f.type]}'`).join(', ');
    await connection.run(`CREATE TABLE people (${FIELDS.map((f) => `"${f.name}" ${DUCK_TYPE[f.type]}`).join(', ')})`);
    for (let from = 0; from < dataset.records; from += CSV_CHUNK_RECORDS) {
      await writeCsv(dataset, csvPath, from, Math.min(dataset.records, from + CSV_CHUNK_RECORDS));
      await connection.run(
        `INSERT INTO people SELECT * FROM read_csv(${literal(csvPath)}, header = true, quote = '"', escape = '"', columns = {${columns}})`,
      );
      rmSync(csvPath, { force: true });
    }
    if (onDisk) await connection.run('CHECKPOINT');
    return { duck: new DuckReference(connection), seconds: (performance.now() - started) / 1000, reused: false };
  }

  /**
   * Bytes of a DuckDB database file holding these records (issue 16 compares our file with it):
   * the persistent file itself, or a copy of the in-memory table written to `scratchPath` (removed).
   */
  async fileBytes(storage: DuckStorage, scratchPath: string): Promise<number> {
    if (storage.where !== 'memory') {
      await this.connection.run('CHECKPOINT');
      return statSync(storage.where).size;
    }
    rmSync(scratchPath, { force: true });
    await this.connection.run(`ATTACH ${literal(scratchPath)} AS sized`);
    await this.connection.run('CREATE TABLE sized.people AS SELECT * FROM people');
    await this.connection.run('DETACH sized');
    const bytes = statSync(scratchPath).size;
    rmSync(scratchPath, { force: true });
    rmSync(`${scratchPath}.wal`, { force: true });
    return bytes;
  }

  async count(state: string, filters: Filters): Promise<number> {
    const reader = await this.connection.runAndReadAll(`SELECT count(*) FROM people WHERE ${whereSql(state, filters)}`);
    return Number(reader.getRows()[0]![0]);
  }

  /** People of an audience by one field's values (a profile's counts; bench/insight.ts). */
  async groupCounts(state: string, filters: Filters, field: string): Promise<number> {
    const reader = await this.connection.runAndReadAll(
      `SELECT "${field}", count(*) FROM people WHERE ${whereSql(state, filters)} GROUP BY 1`,
    );
    return reader.getRows().length;
  }

  async previewPids(state: string, filters: Filters, limit: number, skip: number): Promise<string[]> {
    const reader = await this.connection.runAndReadAll(
      `SELECT PID, FNAME, LNAME, CITY, STATE FROM people WHERE ${whereSql(state, filters)} ORDER BY PID LIMIT ${limit} OFFSET ${skip}`,
    );
    return reader.getRows().map((r) => String(r[0]));
  }

  async searchPids(state: string, filters: Filters, limit: number, skip: number): Promise<string[]> {
    const reader = await this.connection.runAndReadAll(
      `SELECT * FROM people WHERE ${whereSql(state, filters)} ORDER BY PID LIMIT ${limit} OFFSET ${skip}`,
    );
    return reader.getRowObjects().map((r) => String(r.PID));
  }

  async exportCsv(state: string, path: string): Promise<void> {
    await this.connection.run(
      `COPY (SELECT * FROM people WHERE STATE = ${literal(state)} ORDER BY PID) TO ${literal(path)} (HEADER, DELIMITER ',')`,
    );
  }
}
