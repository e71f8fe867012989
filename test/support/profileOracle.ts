// An independent profile (docs/insight.md) by plain SQL over the dataset file's records
// (datasetSql.ts): GROUP BY per field over the audience's PIDs and over everyone in the state, AGE
// banded by a CASE written here, codes ordered by their position in the codebook's list (unknown
// codes after, by code), every code held in the state listed.
import type Database from 'better-sqlite3';
import { CODEBOOK } from '../../src/shared/codebook';
import { openDatasetSql, quoteIdent } from './datasetSql';

const AGE_CASE = `CASE WHEN "AGE" <= 17 THEN '0-17' WHEN "AGE" <= 24 THEN '18-24' WHEN "AGE" <= 34 THEN '25-34'
  WHEN "AGE" <= 44 THEN '35-44' WHEN "AGE" <= 54 THEN '45-54' WHEN "AGE" <= 64 THEN '55-64' ELSE '65+' END`;
const STANDARD_BANDS = ['18-24', '25-34', '35-44', '45-54', '55-64', '65+'];

export interface OracleValue {
  code: string;
  count: number;
  share: number;
  baseCount: number;
  baseShare: number;
  index: number | null;
}

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

export class ProfileOracle {
  private readonly db: Database.Database;
  constructor(path: string) {
    this.db = openDatasetSql(path);
  }

  close(): void {
    this.db.close();
  }

  private readonly tables = new Map<string, string>();

  /** A state's people as a plain table, made once: the view decodes every record's JSON on each query. */
  private stateTable(state: string): string {
    let name = this.tables.get(state);
    if (!name) {
      name = `state_${this.tables.size}`;
      this.db.prepare(`CREATE TEMP TABLE ${name} AS SELECT * FROM people WHERE "STATE" = ?`).run(state);
      this.tables.set(state, name);
    }
    return name;
  }

  private counts(state: string, field: string, pids: readonly string[] | null): Map<string, number> {
    const value = field === 'AGE' ? AGE_CASE : `CAST(${quoteIdent(field)} AS TEXT)`;
    const where = pids === null ? '1' : '"PID" IN (SELECT value FROM json_each(?))';
    const params: unknown[] = pids === null ? [] : [JSON.stringify(pids)];
    const table = this.stateTable(state);
    const rows = this.db.prepare(`SELECT ${value} AS v, count(*) AS n FROM ${table} WHERE ${where} GROUP BY v`).all(...params) as Array<{
      v: string;
      n: number;
    }>;
    return new Map(rows.map((r) => [r.v, r.n]));
  }

  /** The profile of the people `pids` (of one state) by `fields`: each field's values as the answer should give them. */
  profile(
    state: string,
    pids: readonly string[],
    fields: readonly string[],
  ): { total: number; baseTotal: number; fields: Map<string, OracleValue[]> } {
    const baseTotal = (this.db.prepare(`SELECT count(*) AS n FROM ${this.stateTable(state)}`).get() as { n: number }).n;
    const total = pids.length;
    const out = new Map<string, OracleValue[]>();
    for (const field of fields) {
      const base = this.counts(state, field, null);
      const mine = this.counts(state, field, pids);
      let codes: string[];
      if (field === 'AGE') codes = [...(base.has('0-17') ? ['0-17'] : []), ...STANDARD_BANDS];
      else {
        const order = (CODEBOOK[field] ?? []).map((c) => c.code);
        const rank = (c: string) => (order.includes(c) ? order.indexOf(c) : order.length);
        codes = [...base.keys()].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
      }
      out.set(
        field,
        codes.map((code) => {
          const count = mine.get(code) ?? 0;
          const baseCount = base.get(code) ?? 0;
          const share = total ? count / total : 0;
          const baseShare = baseCount / baseTotal;
          return {
            code,
            count,
            share: round4(share),
            baseCount,
            baseShare: round4(baseShare),
            index: baseShare === 0 ? null : Math.round((100 * share) / baseShare),
          };
        }),
      );
    }
    return { total, baseTotal, fields: out };
  }
}
