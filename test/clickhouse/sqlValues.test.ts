// The two ways a request's strings reach ClickHouse, as SQL text: literals (18.16, run for real against
// Debian's server by the .clickhouse.test.ts files) and query parameters (19.11 and later), each chosen
// from the server's version (serverDialect.ts). The SQL of a page is taken from the engine's own page
// functions, through table reads that keep each query's text and parameters.
import { describe, expect, it } from 'vitest';
import { audienceWhere } from '../../src/core/clickhouse/audienceSql';
import { paramText } from '../../src/core/clickhouse/httpQuery';
import { likeScoreSql } from '../../src/core/clickhouse/likeScoreSql';
import { filteredPage, pageRows, PREVIEW_SQL } from '../../src/core/clickhouse/pidPages';
import { dialectFor } from '../../src/core/clickhouse/serverDialect';
import { SqlValues, type QueryParams } from '../../src/core/clickhouse/sqlValues';
import type { Cached, Sql, TableReads } from '../../src/core/clickhouse/tableReads';
import type { Audience, ResolvedLike } from '../../src/core/audience/contract/engine';
import { fieldIndex } from '../../src/shared/fields';

const HOSTILE = "O'BRIEN\\'); DROP TABLE people; --\t\n\0";

const audience: Audience = {
  state: 'CA',
  filters: [
    { field: 'GENDER', index: fieldIndex('GENDER'), kind: 'string', values: ['F', HOSTILE] },
    { field: 'AGE', index: fieldIndex('AGE'), kind: 'integer', bands: [{ lo: 25, hi: 34 }] },
  ],
};

/** Table reads that keep each query as its engine would send it to a server of this version, and answer with `answers` in turn. */
function recordingReads(
  version: string,
  answers: string[][][],
  localTable = false,
): { reads: TableReads; sent: Array<{ sql: string; params: QueryParams }> } {
  const sent: Array<{ sql: string; params: QueryParams }> = [];
  const dialect = dialectFor(version, 'Atomic');
  const reads: TableReads = {
    table: '`ad`.`people`',
    localTable: () => localTable,
    rows: (sql: Sql) => {
      const values = new SqlValues(dialect.queryParameters);
      sent.push({ sql: typeof sql === 'string' ? sql : sql(values), params: values.params });
      return Promise.resolve(answers.shift() ?? []);
    },
    cached: <T extends Cached>() => undefined as T | undefined,
    remember: () => undefined,
  };
  return { reads, sent };
}

describe('request values as SQL', () => {
  it('18.16: every string a literal, in the SQL text, and no parameters', () => {
    const values = new SqlValues(dialectFor('18.16.1', 'Ordinary').queryParameters);
    expect(audienceWhere(audience, values)).toBe(
      "STATE = 'CA' AND `GENDER` IN ('F','O\\'BRIEN\\\\\\'); DROP TABLE people; --\\x09\\x0A\\x00') AND ((`AGE` >= 25 AND `AGE` <= 34))",
    );
    expect(values.params).toEqual({});
  });

  it('19.11 and later: every string a parameter, none in the SQL text; numbers stay literals', () => {
    const values = new SqlValues(dialectFor('19.11.3', 'Ordinary').queryParameters);
    const sql = audienceWhere(audience, values);
    expect(sql).toBe('STATE = {v0:String} AND `GENDER` IN (SELECT arrayJoin({v1:Array(String)})) AND ((`AGE` >= 25 AND `AGE` <= 34))');
    expect(values.params).toEqual({ v0: 'CA', v1: ['F', HOSTILE] });
    expect(sql).not.toContain('BRIEN');
  });

  it('a string filter of one value is an equality on either path (a set of one is slow on 18.16)', () => {
    const one: Audience = { state: 'TX', filters: [{ field: 'GENDER', index: fieldIndex('GENDER'), kind: 'string', values: [HOSTILE] }] };
    expect(audienceWhere(one, new SqlValues(false))).toBe(
      "STATE = 'TX' AND `GENDER` = 'O\\'BRIEN\\\\\\'); DROP TABLE people; --\\x09\\x0A\\x00'",
    );
    const bound = new SqlValues(true);
    expect(audienceWhere(one, bound)).toBe('STATE = {v0:String} AND `GENDER` = {v1:String}');
    expect(bound.params).toEqual({ v0: 'TX', v1: HOSTILE });
  });

  it('a string with a lone surrogate stays a literal on every version (a parameter would turn it into U+FFFD)', () => {
    const values = new SqlValues(true);
    expect(values.string('A\uD800B')).toBe("'A\\xED\\xA0\\x80B'");
    expect(values.stringSet(['X', '\uDC00'])).toBe("('X','\\xED\\xB0\\x80')");
    expect(values.string('\uD83D\uDE00')).toBe('{v0:String}');
    expect(values.params).toEqual({ v0: '\uD83D\uDE00' });
  });

  it('a parameter travels as the server reads param_<name>: tab, newline, return, quote and backslash escaped', () => {
    expect(paramText(HOSTILE)).toBe("O\\'BRIEN\\\\\\'); DROP TABLE people; --\\t\\n\0");
    expect(paramText(['F', "a'b", 'c\\d\r'])).toBe("['F','a\\'b','c\\\\d\\r']");
  });

  it("a lookalike score's string values are bound the same way", () => {
    const like: Pick<ResolvedLike, 'weights'> = {
      weights: [
        {
          field: fieldIndex('GENDER'),
          byValue: new Map<string | number, number>([
            ['F', 3],
            [HOSTILE, -2],
          ]),
        },
      ],
    };
    const literal = new SqlValues(false);
    expect(likeScoreSql(like, literal)).toBe(
      "(toInt64(multiIf(`GENDER` = 'F', 3, `GENDER` = 'O\\'BRIEN\\\\\\'); DROP TABLE people; --\\x09\\x0A\\x00', -2, 0)))",
    );
    const bound = new SqlValues(true);
    expect(likeScoreSql(like, bound)).toBe('(toInt64(multiIf(`GENDER` = {v0:String}, 3, `GENDER` = {v1:String}, -2, 0)))');
    expect(bound.params).toEqual({ v0: 'F', v1: HOSTILE });
  });

  it('a filtered page: its ranks by the audience, then its rows by primary key, on either path', async () => {
    for (const [version, state, gender] of [
      ['18.16.1', "'CA'", "('F','O\\'BRIEN\\\\\\'); DROP TABLE people; --\\x09\\x0A\\x00')"],
      ['24.3.2.23', '{v0:String}', '(SELECT arrayJoin({v1:Array(String)}))'],
    ] as const) {
      const { reads, sent } = recordingReads(version, [
        [['7'], ['9'], ['10']],
        [['a'], ['b'], ['c']],
      ]);
      expect(await pageRows(reads, audience, PREVIEW_SQL, 40, 3)).toHaveLength(3);
      expect(sent[0]!.sql).toBe(
        `SELECT \`PID_RANK\` FROM \`ad\`.\`people\` WHERE STATE = ${state} AND \`GENDER\` IN ${gender} ` +
          'AND ((`AGE` >= 25 AND `AGE` <= 34)) ORDER BY `PID_RANK` LIMIT 40, 3',
      );
      // The page's ranks bound the key range; the set keeps only them within it.
      const byKey = version.startsWith('18') ? "'CA'" : '{v0:String}';
      expect(sent[1]!.sql).toBe(
        `SELECT ${PREVIEW_SQL} FROM \`ad\`.\`people\` WHERE STATE = ${byKey} AND \`PID_RANK\` >= 7 AND \`PID_RANK\` <= 10 ` +
          'AND `PID_RANK` IN (7,9,10) ORDER BY `PID_RANK`',
      );
      expect(sent.map((s) => s.params)).toEqual(version.startsWith('18') ? [{}, {}] : [{ v0: 'CA', v1: ['F', HOSTILE] }, { v0: 'CA' }]);
    }
  });

  it("a filtered page of a preview's narrow columns near the start is one query that sorts the matches' rows", async () => {
    const { reads, sent } = recordingReads('24.3.2.23', [[]]);
    await pageRows(reads, audience, PREVIEW_SQL, 0, 50, true);
    expect(sent).toEqual([
      {
        sql:
          `SELECT ${PREVIEW_SQL} FROM \`ad\`.\`people\` WHERE STATE = {v0:String} AND \`GENDER\` IN (SELECT arrayJoin({v1:Array(String)})) ` +
          'AND ((`AGE` >= 25 AND `AGE` <= 34)) ORDER BY `PID_RANK` LIMIT 0, 50',
        params: { v0: 'CA', v1: ['F', HOSTILE] },
      },
    ]);
  });

  it('on a single node, a filtered page and its count are one query: the count and the ranks as subqueries', async () => {
    const where = (v: readonly [string, string]) => `STATE = ${v[0]} AND \`GENDER\` IN ${v[1]} AND ((\`AGE\` >= 25 AND \`AGE\` <= 34))`;
    for (const [version, first, second, state, params] of [
      [
        '18.16.1',
        ["'CA'", "('F','O\\'BRIEN\\\\\\'); DROP TABLE people; --\\x09\\x0A\\x00')"],
        ["'CA'", "('F','O\\'BRIEN\\\\\\'); DROP TABLE people; --\\x09\\x0A\\x00')"],
        "'CA'",
        {},
      ],
      [
        '24.3.2.23',
        ['{v0:String}', '(SELECT arrayJoin({v1:Array(String)}))'],
        ['{v2:String}', '(SELECT arrayJoin({v3:Array(String)}))'],
        '{v4:String}',
        { v0: 'CA', v1: ['F', HOSTILE], v2: 'CA', v3: ['F', HOSTILE], v4: 'CA' },
      ],
    ] as const) {
      const { reads, sent } = recordingReads(
        version,
        [
          [
            ['43', 'a'],
            ['43', 'b'],
            ['43', 'c'],
          ],
        ],
        true,
      );
      const page = await filteredPage(reads, audience, '`RECORD`', 40, 5, () => Promise.reject(new Error('counted apart')));
      expect(page).toEqual({ total: 43, rows: [['a'], ['b'], ['c']] });
      expect(sent).toEqual([
        {
          sql:
            `SELECT (SELECT count() FROM \`ad\`.\`people\` WHERE ${where(first)}), \`RECORD\` FROM \`ad\`.\`people\` ` +
            `WHERE STATE = ${state} AND \`PID_RANK\` IN (SELECT \`PID_RANK\` FROM \`ad\`.\`people\` WHERE ${where(second)} ` +
            'ORDER BY `PID_RANK` LIMIT 40, 5) ORDER BY `PID_RANK`',
          params,
        },
      ]);
    }
  });

  it('on a single node, an unfiltered page and its count are one query over the key range of its ranks', async () => {
    const { reads, sent } = recordingReads('18.16.1', [[['250', 'x']]], true);
    expect(await filteredPage(reads, { state: 'TX', filters: [] }, PREVIEW_SQL, 249, 50, () => Promise.resolve(-1))).toEqual({
      total: 250,
      rows: [['x']],
    });
    expect(sent.map((s) => s.sql)).toEqual([
      `SELECT (SELECT count() FROM \`ad\`.\`people\` WHERE STATE = 'TX'), ${PREVIEW_SQL} FROM \`ad\`.\`people\` ` +
        "WHERE STATE = 'TX' AND `PID_RANK` >= 249 AND `PID_RANK` < 299 ORDER BY `PID_RANK`",
    ]);
  });

  it('an empty page carries no count, so the count is asked alone; a page that disagrees with its count is refused', async () => {
    const empty = recordingReads('18.16.1', [[]], true);
    expect(await filteredPage(empty.reads, audience, '`RECORD`', 500, 100, () => Promise.resolve(43))).toEqual({ total: 43, rows: [] });
    expect(empty.sent).toHaveLength(1);
    // 43 matches from skip 40 are 3 rows, not 2: the table changed between the subqueries.
    const torn = recordingReads(
      '18.16.1',
      [
        [
          ['43', 'a'],
          ['43', 'b'],
        ],
      ],
      true,
    );
    await expect(filteredPage(torn.reads, audience, '`RECORD`', 40, 5, () => Promise.resolve(43))).rejects.toThrow(
      /changed while a page was read/,
    );
  });

  it('on a cluster (a Distributed table), the count and the page are separate queries, as before', async () => {
    const { reads, sent } = recordingReads('18.16.1', [[['7']], [['a']]], false);
    expect(await filteredPage(reads, audience, '`RECORD`', 0, 1, () => Promise.resolve(1))).toEqual({ total: 1, rows: [['a']] });
    expect(sent.map((s) => s.sql)).toEqual([
      "SELECT `PID_RANK` FROM `ad`.`people` WHERE STATE = 'CA' AND `GENDER` IN ('F','O\\'BRIEN\\\\\\'); DROP TABLE people; --\\x09\\x0A\\x00') " +
        'AND ((`AGE` >= 25 AND `AGE` <= 34)) ORDER BY `PID_RANK` LIMIT 0, 1',
      "SELECT `RECORD` FROM `ad`.`people` WHERE STATE = 'CA' AND `PID_RANK` >= 7 AND `PID_RANK` <= 7 ORDER BY `PID_RANK`",
    ]);
  });

  it('an unfiltered page is the key range of its ranks, one query', async () => {
    const { reads, sent } = recordingReads('18.16.1', [[]]);
    await pageRows(reads, { state: 'TX', filters: [] }, '`RECORD`', 200, 100);
    expect(sent).toEqual([
      {
        sql: "SELECT `RECORD` FROM `ad`.`people` WHERE STATE = 'TX' AND `PID_RANK` >= 200 AND `PID_RANK` < 300 ORDER BY `PID_RANK`",
        params: {},
      },
    ]);
  });
});
