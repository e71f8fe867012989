// An independent answer to "which records match": plain SQL over the dataset file's `people` table,
// written here from decisions.md, not from the engine's column vectors. Conformance tests compare
// the API against it.
import Database from 'better-sqlite3';
import { FIELDS, fieldByName } from '../../src/shared/fields';

export class SqlOracle {
  private readonly db: Database.Database;
  constructor(path: string) {
    this.db = new Database(path, { readonly: true });
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

  /** Full records as the search response should give them: objects keyed in catalog order. */
  records(state: string, filters: Array<[string, Array<string | number>]>, limit: number, skip: number): Array<Record<string, unknown>> {
    const { sql, params } = this.where(state, filters);
    const cols = FIELDS.map((f) => `"${f.name}"`).join(', ');
    return this.db.prepare(`SELECT ${cols} FROM people WHERE ${sql} ORDER BY "PID" LIMIT ? OFFSET ?`).all(...params, limit, skip) as Array<
      Record<string, unknown>
    >;
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
