// Promise 2: no input breaks it. Property-based fuzzing (fast-check) of bodies, headers and filter
// values over real HTTP against the real server: every answer is 2xx or a documented 4xx in the
// one error envelope, never 5xx, never a hang (each request has its own timeout), and the server
// still answers health afterwards. Bodies are sent as raw bytes, so invalid UTF-8, NUL bytes,
// duplicate keys and numbers JSON.stringify could never write all reach the parser. A hostile filter
// the server accepts must answer what an independent oracle (test/support/oracle.ts) counts. Each
// property runs a fixed number of times from a fixed seed, so a failure replays.
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { normalizeAudienceRequest } from '../../src/shared/audienceRequest';
import { FIELDS, FIELD_NAMES, fieldByName } from '../../src/shared/fields';
import { STATE_CODES } from '../../src/shared/states';
import { openDatasetSql, quoteIdent } from '../support/datasetSql';
import { SqlOracle } from '../support/oracle';
import { envelopeProblem, parseRaw, send, sendRaw, startSecurityApi, type RawResponse, type SecurityApi } from './support';

let api: SecurityApi;
let revokedKey: string;
let oracle: SqlOracle;
let oracleDir: string;
const stats = { requests: 0, byStatus: new Map<number, number>(), slowestMs: 0 };

/**
 * Each property runs exactly this many times from a fixed seed: no time limit cuts a run short, and
 * a failure prints the seed and path that replay it (fast-check's `seed` and `path` options).
 */
const RUNS = { bodies: 2_500, hostileFilters: 1_500, rawHttp: 500 };
const SEEDS = { bodies: 330_001, hostileFilters: 330_002, rawHttp: 330_003 };

/**
 * SqlOracle over a copy of the dataset's `people` (openDatasetSql's own reading of the file) kept as a
 * table indexed by state, in a file of format 3, which openDatasetSql opens as it is: the same answers,
 * without decoding every record's JSON again for each of the hundreds of counts below.
 */
function indexedOracle(datasetPath: string, dir: string): SqlOracle {
  const copy = join(dir, 'people.sqlite');
  const columns = ['_pos', ...FIELDS.map((f) => f.name)].map(quoteIdent).join(', ');
  const source = openDatasetSql(datasetPath);
  const target = new Database(copy);
  try {
    // Columns without a declared type keep each value as the view gives it (no affinity): the same comparisons.
    target.exec(`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES ('format_version', '3');`);
    target.exec(`CREATE TABLE people (${columns})`);
    const insert = target.prepare(`INSERT INTO people VALUES (${FIELDS.map(() => '?').join(', ')}, ?)`);
    const rows = source.prepare(`SELECT ${columns} FROM people`).raw();
    target.transaction(() => {
      for (const row of rows.iterate()) insert.run(row as unknown[]);
    })();
    target.exec('CREATE INDEX people_state_pid ON people ("STATE", "PID")');
  } finally {
    source.close();
    target.close();
  }
  return new SqlOracle(copy);
}

beforeAll(async () => {
  oracleDir = mkdtempSync(join(tmpdir(), 'audience-desk-fuzz-oracle-'));
  oracle = indexedOracle(inject('datasetPath'), oracleDir);
  // Short timeouts so that a request the fuzzer leaves incomplete is closed quickly, not waited on.
  api = await startSecurityApi(inject('datasetPath'), {
    server: { headersTimeoutMs: 2_000, requestTimeoutMs: 3_000, timeoutCheckIntervalMs: 250, rateLimit: { perSecond: 1e6, burst: 1e6 } },
  });
  const revoked = api.core.keys.create('revoked');
  api.core.keys.revoke(revoked.info.id);
  revokedKey = revoked.key;
});
afterAll(async () => {
  console.info(
    `fuzz: ${stats.requests} requests; hostile filters accepted ${accepted.byOracle} (checked against the oracle; ${accepted.holdingPeople} holding people) + ${accepted.byNormalised} (against their normalised form); statuses ${JSON.stringify(Object.fromEntries([...stats.byStatus].sort()))} (0 = incomplete request closed at its timeout); slowest answer ${stats.slowestMs} ms`,
  );
  await api.close();
  oracle?.close();
  if (oracleDir) rmSync(oracleDir, { recursive: true, force: true });
});

// ---------- values ----------

const SQLISH = [
  "'; DROP TABLE records; --",
  '" OR 1=1 --',
  "CA' OR '1'='1",
  'STATE); DELETE FROM api_keys; --',
  '1 UNION SELECT hash FROM api_keys',
  '*/ SELECT * FROM people /*',
  "json_extract(record, '$[0]')",
  '_pos',
  'records',
  'sqlite_master',
];
const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'CA\u0000',
  '\u0000\u0000\u0000',
  '\ud800',
  '\udfff',
  '\uffff',
  '\u202e',
  '😀',
  'ÿ',
  '\\',
  '"',
  '%00',
  '%s%s%n',
  '${7*7}',
  '{{7*7}}',
  '<script>',
  '../../etc/passwd',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-0',
  '1e309',
  '0x10',
  ' 25',
  '25 ',
  '25-',
  '-25',
  '25--29',
  '29-25',
  '65++',
  '+65',
  '0-',
  '999999999999999',
  '9999999999999999',
  '1.5',
  '1,5',
];
const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '__defineGetter__', 'valueOf'];

const longString = fc.oneof(
  fc.constantFrom(257, 1_000, 10_000, 100_000).map((n) => 'A'.repeat(n)),
  fc.string({ minLength: 200, maxLength: 400 }),
);
const anyString = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS, ...SQLISH, ...PROTO_KEYS) },
  { weight: 1, arbitrary: longString },
);
const hugeNumber = fc.constantFrom(
  2 ** 53,
  2 ** 53 + 2,
  1e21,
  1e308,
  -1e308,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
  -1,
  -0,
  0.5,
  1e-7,
  2 ** 31,
  2 ** 32,
  -(2 ** 31),
);
const anyNumber = fc.oneof(fc.integer({ min: -5, max: 2_000 }), hugeNumber, fc.double({ noNaN: true, noDefaultInfinity: true }));
const wrongType = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.constant([]),
  fc.constant({}),
  anyNumber,
  anyString,
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
  fc.jsonValue({ maxDepth: 3 }),
);

const fieldName = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...FIELD_NAMES) },
  { weight: 2, arbitrary: fc.constantFrom(...FIELD_NAMES).map((n) => n.toLowerCase()) },
  { weight: 1, arbitrary: fc.constantFrom('LATITUDE', 'LONGITUDE', 'AGE', 'GENDER', 'STATE', 'PID', 'ZIP', 'MARRIEDCD') },
  { weight: 2, arbitrary: anyString },
  { weight: 1, arbitrary: fc.constantFrom(...FIELD_NAMES).map((n) => `${n}"; --`) },
);
const filterValue = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('F', 'M', 'Y', 'N', '', 'CA', '25-29', '65+', '0', '18', '1-1', '0-999999999999999') },
  { weight: 3, arbitrary: anyString },
  { weight: 2, arbitrary: anyNumber },
  { weight: 1, arbitrary: wrongType },
);
const filterEntry = fc.oneof(
  { weight: 8, arbitrary: fc.tuple(fieldName, fc.array(filterValue, { minLength: 0, maxLength: 6 })) },
  { weight: 1, arbitrary: fc.tuple(fieldName, fc.constant(Array.from({ length: 1_001 }, () => 'X'))) },
  { weight: 1, arbitrary: fc.tuple(fieldName, fc.array(fc.constant('0-65535'), { minLength: 50, maxLength: 200 })) },
  { weight: 2, arbitrary: wrongType },
  { weight: 1, arbitrary: fc.tuple(fieldName, fc.array(filterValue, { maxLength: 2 }), wrongType) },
);
/** Well-formed filters on real fields with values of the right type but any content: these reach the engine. */
const STRING_FIELDS = FIELDS.filter((f) => f.type === 'string').map((f) => f.name);
const INTEGER_FIELDS = FIELDS.filter((f) => f.type === 'integer').map((f) => f.name);
const integerValue = fc.oneof(
  fc.nat({ max: 120 }),
  fc.tuple(fc.nat({ max: 99 }), fc.nat({ max: 99 })).map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`),
  fc.nat({ max: 99 }).map((n) => `${n}+`),
  fc.constantFrom('0-999999999999999', '999999999999999', '0+'),
);
const plausibleFilter = fc.oneof(
  fc.tuple(
    fc.constantFrom(...STRING_FIELDS),
    fc.array(fc.oneof(fc.constantFrom('F', 'M', 'Y', '', 'CA', 'SMITH', ...SQLISH, ...NASTY_STRINGS.filter((v) => v.length <= 256))), {
      minLength: 1,
      maxLength: 4,
    }),
  ),
  fc.tuple(fc.constantFrom(...INTEGER_FIELDS), fc.array(integerValue, { minLength: 1, maxLength: 4 })),
);
const filters = fc.oneof(
  { weight: 8, arbitrary: fc.array(filterEntry, { maxLength: 6 }) },
  {
    weight: 1,
    arbitrary: fc.array(fc.tuple(fc.constantFrom('AGE', 'GENDER', 'ZIP'), fc.array(filterValue, { minLength: 1, maxLength: 3 })), {
      minLength: 60,
      maxLength: 70,
    }),
  },
  { weight: 1, arbitrary: wrongType },
);
const state = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...STATE_CODES) },
  { weight: 2, arbitrary: fc.constantFrom(...STATE_CODES).map((s) => s.toLowerCase()) },
  { weight: 3, arbitrary: anyString },
  { weight: 1, arbitrary: wrongType },
);
const limit = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 30 }) },
  { weight: 1, arbitrary: fc.integer({ min: 31, max: 5_000 }) },
  { weight: 2, arbitrary: hugeNumber },
  { weight: 2, arbitrary: wrongType },
);
const skip = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 5_000 }) },
  { weight: 1, arbitrary: fc.constant(Number.MAX_SAFE_INTEGER) },
  { weight: 2, arbitrary: hugeNumber },
  { weight: 2, arbitrary: wrongType },
);

/** An object-ish request: some of the four fields, maybe extra keys, in any order. */
const requestEntries = fc
  .record(
    {
      state,
      limit,
      skip,
      filters,
      extra: fc.array(fc.tuple(fc.oneof(fc.constantFrom(...PROTO_KEYS, 'filter', 'State', 'LIMIT', ''), anyString), wrongType), {
        maxLength: 2,
      }),
    },
    { requiredKeys: [] },
  )
  .map((r) => {
    const entries: Array<[string, unknown]> = [];
    for (const k of ['state', 'limit', 'skip', 'filters'] as const) if (k in r) entries.push([k, r[k]]);
    for (const e of r.extra ?? []) entries.push(e);
    return entries;
  });

/** Writes entries as JSON text by hand: duplicate keys and `__proto__` reach the parser as written. */
function objectText(entries: Array<[string, unknown]>): string {
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}`).join(',')}}`;
}

const deep = fc
  .integer({ min: 1_000, max: 120_000 })
  .chain((n) =>
    fc.constantFrom(
      '['.repeat(n) + ']'.repeat(n),
      '['.repeat(n),
      '{"a":'.repeat(Math.min(n, 40_000)) + '1' + '}'.repeat(Math.min(n, 40_000)),
      `{"state":"CA","filters":${'['.repeat(n)}${']'.repeat(n)}}`,
      `{"state":"CA","filters":[["AGE",${'['.repeat(n)}${']'.repeat(n)}]]}`,
      `{"state":${'{"__proto__":'.repeat(Math.min(n, 20_000))}1${'}'.repeat(Math.min(n, 20_000))}}`,
    ),
  );

const bodyBytes: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 10, arbitrary: requestEntries.map((e) => Buffer.from(objectText(e), 'utf8')) },
  // Duplicate keys: the same key twice, last one wins in JSON.parse; must still be validated.
  { weight: 2, arbitrary: fc.tuple(requestEntries, requestEntries).map(([a, b]) => Buffer.from(objectText([...a, ...b]), 'utf8')) },
  // Numbers as text JSON.stringify cannot write.
  {
    weight: 2,
    arbitrary: fc
      .constantFrom('1e400', '-1e400', '-0', '0.0', '1E2', '25.0', '123456789012345678901234567890', '0e0', '-0.0e-0')
      .chain((n) =>
        fc.constantFrom(`{"state":"CA","limit":${n}}`, `{"state":"CA","skip":${n}}`, `{"state":"CA","filters":[["AGE",[${n}]]]}`),
      )
      .map((t) => Buffer.from(t)),
  },
  // Invalid UTF-8 and raw control bytes inside otherwise valid JSON strings.
  {
    weight: 3,
    arbitrary: fc.tuple(fc.constantFrom('state', 'name', 'value'), fc.uint8Array({ minLength: 1, maxLength: 12 })).map(([where, bytes]) => {
      const junk = Buffer.from(bytes);
      const parts =
        where === 'state'
          ? [Buffer.from('{"state":"'), junk, Buffer.from('"}')]
          : where === 'name'
            ? [Buffer.from('{"state":"CA","filters":[["'), junk, Buffer.from('",["F"]]]}')]
            : [Buffer.from('{"state":"CA","filters":[["LNAME",["'), junk, Buffer.from('"]]]}')];
      return Buffer.concat(parts);
    }),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      Buffer.from([0xff, 0xfe, 0x7b, 0x7d]),
      Buffer.from([0xef, 0xbb, 0xbf, ...Buffer.from('{"state":"CA"}')]),
      Buffer.from('{"state":"C\u0000A"}'),
      Buffer.from([0x7b, 0x00, 0x7d]),
      Buffer.from([0xc0, 0x80]),
      Buffer.from([0xed, 0xa0, 0x80]),
    ),
  },
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)) },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom(
        '',
        ' ',
        '\n',
        'null',
        'true',
        '0',
        '""',
        '[]',
        '{}',
        '{',
        '}',
        '{"state":',
        '{"state":"CA",}',
        "{'state':'CA'}",
        '{"state":"CA"}garbage',
        '{"state":"CA"}{"state":"TX"}',
        '\u0000',
      )
      .map((t) => Buffer.from(t)),
  },
  { weight: 1, arbitrary: deep.map((t) => Buffer.from(t)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(250 * 1024, 256 * 1024 + 1, 300 * 1024).map((n) => Buffer.from(`{"state":"CA","x":"${'A'.repeat(n)}"}`)),
  },
);

// ---------- headers, paths ----------

const headerSafe = fc.string({
  unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-;=/ ,.*+'.split('')),
  maxLength: 60,
});
const contentType = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'Application/Json;Charset=UTF-8'),
  },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'application/json; charset=latin1',
      'application/json; charset=utf-16',
      'application/json, text/plain',
      'application/json ;',
      'application/jsonx',
      'application/json5',
      'text/json',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/octet-stream',
      '*/*',
      ';',
      '',
    ),
  },
  { weight: 1, arbitrary: headerSafe },
  { weight: 2, arbitrary: fc.constant(undefined) },
);
const keyHeader = fc.oneof(
  { weight: 10, arbitrary: fc.constant('VALID') },
  { weight: 1, arbitrary: fc.constant('REVOKED') },
  { weight: 1, arbitrary: fc.constant(undefined) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('', 'adk_', 'adk_' + 'A'.repeat(43), 'adk_' + 'A'.repeat(42) + '!', 'Bearer x', 'A'.repeat(8_000)),
  },
  { weight: 1, arbitrary: headerSafe },
);
const extraHeaders = fc.dictionary(
  fc
    .string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz-'.split('')), minLength: 1, maxLength: 20 })
    .filter(
      (n) =>
        ![
          'host',
          'content-length',
          'transfer-encoding',
          'connection',
          'expect',
          'upgrade',
          'x-api-key',
          'content-type',
          'origin',
          'sec-fetch-site',
          'te',
          'trailer',
          'keep-alive',
        ].includes(n),
    ),
  headerSafe,
  { maxKeys: 4 },
);
const path = fc.oneof(
  { weight: 10, arbitrary: fc.constantFrom('/api/audiences/preview', '/api/audiences/search') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '/api/health',
      '/api/openapi.json',
      '/api/audiences',
      '/api/audiences/',
      '/api/audiences/preview/',
      '/API/AUDIENCES/PREVIEW',
      '/api/audiences/preview?state=CA',
      '/api/audiences/search?limit=5&x[]=1',
      '/api//audiences/preview',
      '/api/audiences/%2e%2e/preview',
      '/api/audiences/preview#x',
      '/api/audiences/preview;x',
      '/%00',
      '/api/%ff',
    ),
  },
  { weight: 1, arbitrary: fc.webPath().map((p) => `/api/${p.replace(/^\/+/, '')}`) },
);
const method = fc.oneof(
  { weight: 12, arbitrary: fc.constant('POST') },
  { weight: 1, arbitrary: fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS') },
);

// ---------- the property ----------

function tally(status: number, ms: number) {
  stats.requests++;
  stats.byStatus.set(status, (stats.byStatus.get(status) ?? 0) + 1);
  // Status 0: an incomplete raw request the server closed after its timeout, not a slow answer.
  if (status > 0) stats.slowestMs = Math.max(stats.slowestMs, Math.round(ms));
}

/** What every answer must be: 2xx with the documented body, or a documented 4xx in the envelope. */
function checkAnswer(m: string, p: string, res: RawResponse): void {
  if (res.status >= 500) throw new Error(`${res.status} for ${m} ${p}: ${res.body.slice(0, 200)}`);
  if (m === 'HEAD') return;
  if (res.status >= 400) {
    const problem = envelopeProblem(res.status, res.body);
    if (problem) throw new Error(`${res.status} for ${m} ${p}: ${problem}`);
    if (res.status === 405 && !res.headers.allow) throw new Error('405 without Allow');
    if (res.status === 429 && !res.headers['retry-after']) throw new Error('429 without Retry-After');
    return;
  }
  if (res.status !== 200) throw new Error(`unexpected ${res.status} for ${m} ${p}`);
  const body = JSON.parse(res.body);
  if (p.includes('/preview')) {
    if (!Number.isInteger(body.total) || !Array.isArray(body.results) || Object.keys(body).join() !== 'total,results')
      throw new Error('bad preview body');
  } else if (p.includes('/search')) {
    if (Object.keys(body).join() !== 'total,limit,skip,results' || body.limit > 1000) throw new Error('bad search body');
  }
}

// ---------- what an accepted filter must answer ----------

type OracleFilter = [string, Array<string | number>];
const INTEGER_VALUE = /^(\d+)(?:-(\d+)|\+)?$/;

/**
 * The filters as SqlOracle takes them, when every one is what decisions.md accepts in words the
 * oracle can say: a field's name (any case), then string values for a text field, or whole numbers
 * of 0 or more, `LO-HI` (LO <= HI) or `N+` for an integer field. Null for anything else.
 */
function oracleFilters(filters: unknown): OracleFilter[] | null {
  if (!Array.isArray(filters)) return null;
  const out: OracleFilter[] = [];
  for (const entry of filters) {
    if (!Array.isArray(entry) || entry.length !== 2 || typeof entry[0] !== 'string' || !Array.isArray(entry[1])) return null;
    const [name, values] = entry as [string, unknown[]];
    const def = fieldByName(name);
    if (!def || values.length === 0) return null;
    for (const v of values) {
      if (def.type === 'string' && typeof v === 'string') continue;
      if (def.type === 'integer' && typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) continue;
      const m = def.type === 'integer' && typeof v === 'string' ? INTEGER_VALUE.exec(v) : null;
      if (m && (m[2] === undefined || Number(m[1]) <= Number(m[2]))) continue;
      return null;
    }
    out.push([name, values as Array<string | number>]);
  }
  return out;
}

/** The same audience written the one plain way: field names in capitals, bands as `LO-HI` or `N+`. */
function normalisedBody(body: unknown): Record<string, unknown> {
  const audience = normalizeAudienceRequest(body);
  const filters = audience.filters.map((f) =>
    f.kind === 'string' ? [f.field, f.values] : [f.field, f.bands.map((b) => (b.hi === Infinity ? `${b.lo}+` : `${b.lo}-${b.hi}`))],
  );
  return { state: audience.state, filters, limit: audience.limit };
}

/** The PIDs of an answer's records, preview or search. */
function answerPids(answer: { results: Array<{ pid?: string; PID?: string }> }): string[] {
  return answer.results.map((r) => (r.pid ?? r.PID)!);
}

const accepted = { byOracle: 0, byNormalised: 0, holdingPeople: 0 };
/** Text fields with few values, which many people share. */
const REAL_FIELDS = ['GENDER', 'MARRIEDCD', 'HOMEOWNERC', 'DWELLTYPE', 'DPV', 'DNC', 'EHI', 'CHILD'];

describe('fuzzing the API over real HTTP', () => {
  it('bodies, headers, paths and filter values: never 5xx, never a hang, always the documented shapes', async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(method, path, contentType, keyHeader, extraHeaders, bodyBytes, async (m, p, type, key, extra, body) => {
        runs++;
        const headers: Record<string, string> = { ...extra, connection: 'close' };
        if (type !== undefined) headers['content-type'] = type;
        if (key === 'VALID') headers['x-api-key'] = api.key;
        else if (key === 'REVOKED') headers['x-api-key'] = revokedKey;
        else if (key !== undefined) headers['x-api-key'] = key;
        const started = performance.now();
        const res = await send(api.url, {
          method: m,
          path: p,
          headers,
          body: m === 'GET' || m === 'HEAD' ? undefined : body,
          timeoutMs: 5_000,
        });
        tally(res.status, performance.now() - started);
        checkAnswer(m, p, res);
      }),
      { numRuns: RUNS.bodies, seed: SEEDS.bodies, endOnFailure: true },
    );
    expect(runs).toBe(RUNS.bodies);
  }, 300_000);

  it('valid envelopes with hostile filters: names and values of every kind', async () => {
    // Filters on values the dataset holds (as the oracle reads them), in either case, now and then with a
    // hostile value beside them, and integer bands on fields everyone has: these match people, so that
    // the oracle's counts are compared with answers that are not all zero.
    const knownValues = REAL_FIELDS.map((field) => [field, oracle.distinct('CA', field).map(String)] as const);
    const realFilter = fc.oneof(
      fc.constantFrom(...knownValues).chain(([field, known]) =>
        fc.tuple(
          fc.constant(field),
          fc
            .array(
              fc.oneof(
                { weight: 4, arbitrary: fc.constantFrom(...known) },
                { weight: 1, arbitrary: fc.constantFrom(...SQLISH, ...NASTY_STRINGS) },
              ),
              {
                minLength: 1,
                maxLength: 4,
              },
            )
            .map((values) => values.map((v, i) => (i % 2 ? v.toLowerCase() : v))),
        ),
      ),
      fc.tuple(fc.constantFrom('AGE', 'LOR', 'HHNBR'), fc.array(integerValue, { minLength: 1, maxLength: 4 })),
    );
    const entry = fc.oneof(
      { weight: 3, arbitrary: plausibleFilter },
      { weight: 1, arbitrary: filterEntry },
      { weight: 2, arbitrary: realFilter },
    );
    const hostile = fc.record({
      state: fc.constantFrom(...STATE_CODES),
      filters: fc.oneof(
        fc.array(entry, { minLength: 1, maxLength: 8 }),
        fc.array(fc.oneof({ weight: 3, arbitrary: realFilter }, { weight: 1, arbitrary: entry }), { minLength: 1, maxLength: 3 }),
      ),
      limit: fc.integer({ min: 0, max: 5 }),
    });
    const post = async (p: string, body: string): Promise<RawResponse> => {
      const started = performance.now();
      const res = await send(api.url, {
        method: 'POST',
        path: p,
        headers: { 'content-type': 'application/json', 'x-api-key': api.key },
        body,
        timeoutMs: 5_000,
      });
      tally(res.status, performance.now() - started);
      return res;
    };
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(hostile, fc.constantFrom('/api/audiences/preview', '/api/audiences/search'), async (request, p) => {
        runs++;
        const text = JSON.stringify(request);
        const res = await post(p, text);
        checkAnswer('POST', p, res);
        // What is refused names a cause (checkAnswer); what is accepted is the right answer.
        if (res.status !== 200) return;
        const answer = JSON.parse(res.body) as { total: number; results: Array<{ pid?: string; PID?: string }> };
        // The request as the server read it (JSON has no -0, no undefined).
        const sent = JSON.parse(text) as typeof request;
        const filters = oracleFilters(sent.filters);
        if (filters) {
          accepted.byOracle++;
          if (answer.total > 0) accepted.holdingPeople++;
          expect({ request: text, total: answer.total }).toEqual({ request: text, total: oracle.count(sent.state, filters) });
          expect(answerPids(answer)).toEqual(oracle.pids(sent.state, filters, sent.limit, 0));
          return;
        }
        // Accepted, but in words the oracle cannot say: exactly the answer to the same audience written plainly.
        accepted.byNormalised++;
        const plain = await post(p, JSON.stringify(normalisedBody(sent)));
        expect({ request: text, status: plain.status, body: plain.body }).toEqual({ request: text, status: 200, body: res.body });
      }),
      { numRuns: RUNS.hostileFilters, seed: SEEDS.hostileFilters, endOnFailure: true },
    );
    expect(runs).toBe(RUNS.hostileFilters);
    // The check is only worth something if many hostile filters were accepted and counted by the oracle,
    // and a good share of those answers hold people.
    expect(accepted.byOracle).toBeGreaterThan(RUNS.hostileFilters / 5);
    expect(accepted.holdingPeople).toBeGreaterThan(RUNS.hostileFilters / 10);
  }, 300_000);

  it('raw HTTP: broken header bytes, duplicate and folded headers, chunked bodies: the envelope or a closed socket, never 5xx', async () => {
    const headerLine = fc.oneof(
      {
        weight: 3,
        arbitrary: fc
          .tuple(
            fc.constantFrom('X-Junk', 'Accept', 'User-Agent', 'X-API-KEY', 'Content-Type', 'Host', 'Origin', 'Cookie'),
            fc.uint8Array({ maxLength: 30 }),
          )
          .map(([n, v]) =>
            Buffer.concat([Buffer.from(`${n}: `), Buffer.from(v).map((b) => (b === 13 || b === 10 ? 32 : b)), Buffer.from('\r\n')]),
          ),
      },
      {
        weight: 1,
        arbitrary: fc
          .constantFrom(
            'NoColonHere\r\n',
            ': empty-name\r\n',
            'X-Folded: a\r\n b\r\n',
            'X-Space : x\r\n',
            `X-Long: ${'a'.repeat(20_000)}\r\n`,
            'Content-Length: 5\r\n',
            'Content-Length: -1\r\n',
            'Content-Length: 1, 2\r\n',
            'Transfer-Encoding: gzip\r\n',
            'Transfer-Encoding: chunked\r\n',
          )
          .map((t) => Buffer.from(t)),
      },
    );
    const framing = fc.constantFrom('length', 'chunked', 'chunked-bad', 'none');
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('POST', 'GET', 'POST ', 'post', 'P\u00d6ST', 'CONNECT'),
        fc.constantFrom(
          '/api/audiences/preview',
          '/api/audiences/search',
          '*',
          'http://127.0.0.1/api/health',
          '/api/health HTTP/1.1',
          '/\u0000',
        ),
        fc.array(headerLine, { maxLength: 4 }),
        framing,
        bodyBytes,
        async (m, p, lines, frame, body) => {
          runs++;
          const head = [
            Buffer.from(
              `${m} ${p} HTTP/1.1\r\nHost: 127.0.0.1:${api.port}\r\nContent-Type: application/json\r\nX-API-KEY: ${api.key}\r\nConnection: close\r\n`,
            ),
            ...lines,
          ];
          let payload: Buffer;
          if (frame === 'length') payload = Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]);
          else if (frame === 'chunked')
            payload = Buffer.concat([
              Buffer.from(`Transfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n`),
              body,
              Buffer.from('\r\n0\r\n\r\n'),
            ]);
          else if (frame === 'chunked-bad')
            payload = Buffer.concat([Buffer.from('Transfer-Encoding: chunked\r\n\r\nzz\r\n'), body, Buffer.from('\r\n0\r\n\r\n')]);
          else payload = Buffer.from('\r\n');
          const started = performance.now();
          const { text, closedByServer } = await sendRaw(api.port, Buffer.concat([...head, payload]), 6_000);
          const { status, headers, body: answer } = parseRaw(text);
          tally(status, performance.now() - started);
          if (!closedByServer) throw new Error(`no answer and the socket still open after 6 s: ${m} ${p} ${frame}`);
          if (status === 0) return; // closed without an answer: an incomplete request that timed out
          if (status >= 500) throw new Error(`${status}: ${answer.slice(0, 200)}`);
          if (status >= 400) {
            const problem = envelopeProblem(status, answer);
            if (problem) throw new Error(`${status} ${m} ${p} ${frame}: ${problem}; ${headers.split('\r\n')[0]}`);
          }
        },
      ),
      { numRuns: RUNS.rawHttp, seed: SEEDS.rawHttp, endOnFailure: true },
    );
    expect(runs).toBe(RUNS.rawHttp);
  }, 300_000);

  it('still answers health afterwards', async () => {
    // How fast is for the benchmarks; here, that it answers at all (the timeout only catches a hang).
    const res = await send(api.url, { path: '/api/health', timeoutMs: 10_000 });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ status: 'ok' });
  });
});
