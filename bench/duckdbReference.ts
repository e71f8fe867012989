// The reference engine: DuckDB in the same process, loaded with the same records (from a CSV the
// project's own record format writes), answering the same workload with the equivalent SQL.
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { Dataset } from '../src/core/dataset/dataset';
import { CSV_HEADER, recordToCsvLine, type RecordValues } from '../src/core/dataset/recordFormat';
import { FIELDS, fieldByName } from '../src/shared/fields';
import type { Filters } from './workload';

const DUCK_TYPE = { string: 'VARCHAR', integer: 'INTEGER', number: 'DOUBLE' } as const;

async function writeCsv(dataset: Dataset, path: string): Promise<void> {
  const out = createWriteStream(path);
  out.write(CSV_HEADER + '\n');
  for (let first = 0; first < dataset.records; first += 10_000) {
    const positions = Array.from({ length: Math.min(10_000, dataset.records - first) }, (_, i) => first + i);
    const chunk = dataset.recordTexts(positions).map((t) => recordToCsvLine(JSON.parse(t) as RecordValues)).join('\n') + '\n';
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
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

  static async load(dataset: Dataset, csvPath: string): Promise<{ duck: DuckReference; seconds: number }> {
    const started = performance.now();
    await writeCsv(dataset, csvPath);
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    const columns = FIELDS.map((f) => `'${f.name}': '${DUCK_TYPE[f.type]}'`).join(', ');
    await connection.run(`CREATE TABLE people AS SELECT * FROM read_csv(${literal(csvPath)}, header = true, quote = '"', escape = '"', columns = {${columns}})`);
    return { duck: new DuckReference(connection), seconds: (performance.now() - started) / 1000 };
  }

  async count(state: string, filters: Filters): Promise<number> {
    const reader = await this.connection.runAndReadAll(`SELECT count(*) FROM people WHERE ${whereSql(state, filters)}`);
    return Number(reader.getRows()[0]![0]);
  }

  async previewPids(state: string, filters: Filters, limit: number, skip: number): Promise<string[]> {
    const reader = await this.connection.runAndReadAll(`SELECT PID, FNAME, LNAME, CITY, STATE FROM people WHERE ${whereSql(state, filters)} ORDER BY PID LIMIT ${limit} OFFSET ${skip}`);
    return reader.getRows().map((r) => String(r[0]));
  }

  async searchPids(state: string, filters: Filters, limit: number, skip: number): Promise<string[]> {
    const reader = await this.connection.runAndReadAll(`SELECT * FROM people WHERE ${whereSql(state, filters)} ORDER BY PID LIMIT ${limit} OFFSET ${skip}`);
    return reader.getRowObjects().map((r) => String(r.PID));
  }

  async exportCsv(state: string, path: string): Promise<void> {
    await this.connection.run(`COPY (SELECT * FROM people WHERE STATE = ${literal(state)} ORDER BY PID) TO ${literal(path)} (HEADER, DELIMITER ',')`);
  }
}
