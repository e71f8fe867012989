// An independent answer to "which records match": plain SQL over the dataset file's `people` table,
// written here from decisions.md, not from the engine's column vectors. Conformance tests compare
// the API against it.
import Database from 'better-sqlite3';
import { openDatasetSql } from './datasetSql';
import { FIELDS, fieldByName } from '../../src/shared/fields';

export class SqlOracle {
  private readonly db: Database.Database;
  constructor(path: string) {
    this.db = openDatasetSql(path);
  }

  private where(state: string, filters: Array<[string, Array<string | number>]>): { sql: string; params: unknown[] } {
    const clauses = ['"STATE" = ?'];
    const params: unknown[] = [state.toUpperCase()];
    for (const [name, values] of filters) {
      const def = fieldByName(name)!;
      const col = `"${def.name}"`;
      const ors: string[] = [];
      for (const raw of values) {
        if (def.type === 'string') {
          ors.push(`${col} = ?`);
          params.push(String(raw).toUpperCase());
          continue;
        }
        const v = String(raw);
        let m: RegExpExecArray | null;
        if ((m = /^(\d+)-(\d+)$/.exec(v))) {
          ors.push(`${col} BETWEEN ? AND ?`);
          params.push(Number(m[1]), Number(m[2]));
        } else if ((m = /^(\d+)\+$/.exec(v))) {
          ors.push(`${col} >= ?`);
          params.push(Number(m[1]));
        } else {
          ors.push(`${col} = ?`);
          params.push(Number(v));
        }
      }
      clauses.push(`(${ors.join(' OR ')})`);
    }
    return { sql: clauses.join(' AND '), params };
  }

  count(state: string, filters: Array<[string, Array<string | number>]> = []): number {
    const { sql, params } = this.where(state, filters);
    return (this.db.prepare(`SELECT count(*) AS n FROM people WHERE ${sql}`).get(...params) as { n: number }).n;
  }

  pids(state: string, filters: Array<[string, Array<string | number>]> = [], limit = -1, skip = 0): string[] {
    const { sql, params } = this.where(state, filters);
    return this.db
      .prepare(`SELECT "PID" FROM people WHERE ${sql} ORDER BY "PID" LIMIT ? OFFSET ?`)
      .pluck()
      .all(...params, limit, skip) as string[];
  }

  /**
   * `pids` in the order the dataset file stores their records, by its own positions (`_pos`): the
   * order an export writes (docs/dataset-format.md, "Record order"). Every PID must be the file's.
   */
  inStorageOrder(pids: readonly string[]): string[] {
    const stored = this.db
      .prepare(`SELECT "PID" FROM people WHERE "PID" IN (SELECT value FROM json_each(?)) ORDER BY _pos`)
      .pluck()
      .all(JSON.stringify(pids)) as string[];
    if (stored.length !== new Set(pids).size) throw new Error('Some of the PIDs are not in the dataset.');
    return stored;
  }

  /** Full records as the search response should give them: objects keyed in catalog order. */
  records(state: string, filters: Array<[string, Array<string | number>]>, limit: number, skip: number): Array<Record<string, unknown>> {
    const { sql, params } = this.where(state, filters);
    const cols = FIELDS.map((f) => `"${f.name}"`).join(', ');
    return this.db.prepare(`SELECT ${cols} FROM people WHERE ${sql} ORDER BY "PID" LIMIT ? OFFSET ?`).all(...params, limit, skip) as Array<
      Record<string, unknown>
    >;
  }

  /**
   * The PIDs extensions.md's list controls leave, in PID order, written as plain SQL from its text:
   * contact and exclusions narrow, then the lowest PID of each HHID among those left, then every n-th.
   * `excludePids` are people to leave out (what an `exclude` entry names).
   */
  listPids(
    state: string,
    filters: Array<[string, Array<string | number>]>,
    controls: { phone?: boolean; mail?: boolean; excludePids?: readonly string[]; oneHousehold?: boolean; every?: number },
  ): string[] {
    const { sql, params } = this.where(state, filters);
    const clauses = [sql];
    if (controls.phone)
      clauses.push(`(("PHONE" <> '' AND "DNC" = '') OR ("PHONE2" <> '' AND "DNC2" = '') OR ("PHONE3" <> '' AND "DNC3" = ''))`);
    if (controls.mail) clauses.push(`("DPV" = 'Y' AND "VACANT" <> 'Y')`);
    if (controls.excludePids?.length) {
      clauses.push(`"PID" NOT IN (SELECT value FROM json_each(?))`);
      params.push(JSON.stringify(controls.excludePids));
    }
    const left = `SELECT "PID", "HHID" FROM people WHERE ${clauses.join(' AND ')}`;
    const kept = controls.oneHousehold ? `SELECT min("PID") AS "PID" FROM (${left}) GROUP BY "HHID"` : `SELECT "PID" FROM (${left})`;
    const numbered = `SELECT "PID", row_number() OVER (ORDER BY "PID") - 1 AS k FROM (${kept})`;
    const every = controls.every ?? 1;
    return this.db
      .prepare(`SELECT "PID" FROM (${numbered}) WHERE k % ? = 0 ORDER BY "PID"`)
      .pluck()
      .all(...params, every) as string[];
  }

  /** PID, latitude and longitude of a state's people matching filters, in PID order (for distance checks). */
  places(state: string, filters: Array<[string, Array<string | number>]> = []): Array<{ pid: string; lat: number; lon: number }> {
    const { sql, params } = this.where(state, filters);
    return this.db
      .prepare(`SELECT "PID" AS pid, "LATITUDE" AS lat, "LONGITUDE" AS lon FROM people WHERE ${sql} ORDER BY "PID"`)
      .all(...params) as Array<{
      pid: string;
      lat: number;
      lon: number;
    }>;
  }

  /** A ZIP's centre as plain SQL computes it: the mean position of every person in it. */
  zipCentre(zip: string): { lat: number; lon: number; n: number } {
    return this.db
      .prepare(`SELECT avg("LATITUDE") AS lat, avg("LONGITUDE") AS lon, count(*) AS n FROM people WHERE "ZIP" = ?`)
      .get(zip) as {
      lat: number;
      lon: number;
      n: number;
    };
  }

  /** How many people of a state hold each pair of two fields' values (a cross-tab), keyed "row|column". */
  pairCounts(state: string, filters: Array<[string, Array<string | number>]>, rows: string, columns: string): Map<string, number> {
    const { sql, params } = this.where(state, filters);
    const out = new Map<string, number>();
    const all = this.db
      .prepare(`SELECT "${rows}" AS r, "${columns}" AS c, count(*) AS n FROM people WHERE ${sql} GROUP BY 1, 2`)
      .all(...params) as Array<{
      r: string | number;
      c: string | number;
      n: number;
    }>;
    for (const { r, c, n } of all) out.set(`${r}|${c}`, n);
    return out;
  }

  distinct(state: string, field: string): Array<string | number> {
    return this.db.prepare(`SELECT DISTINCT "${field}" FROM people WHERE "STATE" = ? ORDER BY 1`).pluck().all(state) as Array<
      string | number
    >;
  }

  close(): void {
    this.db.close();
  }
}
