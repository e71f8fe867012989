// The ClickHouse engine: the engine interface (src/core/audience/engine.ts) over a dataset loaded
// into a ClickHouse server (load.ts), answering exactly as the embedded engine does.
//
// - Counts, breakdowns and cross-tabs are SQL over the state's range of the (STATE, PID) key.
// - Pages never walk an OFFSET from the start: an audience's PID at every BOOKMARK_STEP-th match is
//   found once (one sorted array on the server, cached here), and a page at any depth starts at the
//   bookmark before it (`PID >= bookmark`, a range read) with an offset below BOOKMARK_STEP. A search
//   then reads its 100 records by primary key (`STATE = … AND PID IN (…)`).
// - List controls (extensions.md) run here on the audience's PIDs, with the embedded engine's own
//   functions (src/core/query/listSteps.ts) for distance, households and samples, so the same people
//   are chosen: a sample is a shuffle over the candidates' order, which SQL cannot repeat.
// - Export streams bookmark-bounded chunks of whole records, so memory stays flat.
import { AGE_BANDS, ageBandOf } from '../../shared/ageBands';
import { audienceKey } from '../../shared/audienceRequest';
import { compareCodes } from '../../shared/codebook';
import type { AudienceSteps, PreviewRecord, ValueCount } from '../../shared/contract';
import { AppError } from '../../shared/errors';
import { FIELDS, fieldIndex } from '../../shared/fields';
import {
  assertResolved,
  type Audience,
  type AudienceEngine,
  type CrossTabCounts,
  type DatasetSummary,
  type Exclusion,
  type RecordMatcher,
  type RecordStream,
  type ResolvedControls,
} from '../audience/engine';
import { applySample, keepNear, keepWhere, onePerHousehold } from '../query/listSteps';
import { LruCache } from '../query/lruCache';
import { DEFAULT_QUERY_BUDGET_MS } from '../query/embeddedEngine';
import { CALLABLE_SQL, DELIVERABLE_SQL, audienceWhere } from './audienceSql';
import { ClickHouseConnection, clickhouseCode, shownAddress, type ClickHouseTarget } from './connection';
import { COLUMN_PLANS, STORED_COLUMNS_SQL } from './schema';
import { sqlIdentifier, sqlString, sqlStringList } from './sqlLiteral';
import { tsvUnescape } from './tsv';
import { floatFromBits, recordJson, valueOf } from './values';

/** Matches between two bookmarks: a deep page skips fewer than this many rows after a range read. */
export const BOOKMARK_STEP = 10_000;
/** Records a chunk of an export reads (one range of PIDs between two bookmarks). */
const EXPORT_CHUNK = 5_000;
/** PIDs one `PID IN (…)` read names. */
const IN_LIST_MAX = 2_000;
const CACHE_BYTES = 128 * 1024 * 1024;
/** How often the engine asks whether a new load replaced the dataset (its caches would be stale). */
const FRESHNESS_MS = 2_000;
/** ClickHouse's "table doesn't exist": seen for an instant while a load renames tables. */
const UNKNOWN_TABLE = 60;

export const DATA_TABLE = 'people';
export const META_TABLE = 'people_meta';

interface Cached {
  bytes: number;
}
interface CountEntry extends Cached {
  total: number;
}
interface BookmarkEntry extends Cached {
  total: number;
  marks: string[];
}
interface ListEntry extends Cached {
  pids: string[];
  steps: AudienceSteps;
}

export interface ClickHouseEngineOptions {
  /** Seconds a preview or search may run on the server (max_execution_time). */
  queryBudgetSeconds?: number;
  /** Bytes of counts, bookmarks and PID lists kept for recent audiences; 0 turns caching off (benchmarks). */
  cacheBytes?: number;
  /** Matches between two page bookmarks (BOOKMARK_STEP); small values exist for tests. */
  bookmarkStep?: number;
  /** Records an export chunk reads (EXPORT_CHUNK); small values exist for tests. */
  exportChunk?: number;
}

interface Meta {
  loadId: string;
  createdAt: string | null;
  source: string;
  hashed: Set<string>;
}

function hasEffect(c: ResolvedControls | undefined): c is ResolvedControls {
  return (
    !!c && (c.near !== null || c.contact.phone || c.contact.mail || c.exclusions.length > 0 || c.households === 'one' || c.sample !== null)
  );
}

const PREVIEW_SQL = ['PID', 'FNAME', 'LNAME', 'CITY', 'STATE'].map(sqlIdentifier).join(', ');

function previewOf(row: string[]): PreviewRecord {
  return {
    pid: tsvUnescape(row[0]!),
    fname: tsvUnescape(row[1]!),
    lname: tsvUnescape(row[2]!),
    city: tsvUnescape(row[3]!),
    state: tsvUnescape(row[4]!),
  };
}

/** Every `step`-th element of a ClickHouse array text of PIDs (32 hex characters: nothing to unescape). */
function parsePidArray(text: string): string[] {
  return [...text.matchAll(/'((?:[^'\\]|\\.)*)'/g)].map((m) => tsvUnescape(m[1]!.replace(/\\'/g, "'")));
}

export class ClickHouseEngine implements AudienceEngine {
  private cache: LruCache<Cached>;
  private meta: Meta;
  private checkedAt = Date.now();
  private readonly matched = new Map<string, Set<string>>();
  private readonly zipCentres = new Map<string, { lat: number; lon: number } | undefined>();
  private readonly table: string;
  private readonly options: ClickHouseEngineOptions;
  private readonly metaTable: string;

  private constructor(
    private readonly connection: ClickHouseConnection,
    meta: Meta,
    options: ClickHouseEngineOptions,
  ) {
    this.meta = meta;
    // The embedded engine's budget for one preview or search (SECURITY.md), unless told otherwise.
    this.options = { queryBudgetSeconds: DEFAULT_QUERY_BUDGET_MS / 1000, ...options };
    this.cache = new LruCache<Cached>(options.cacheBytes ?? CACHE_BYTES, 4096);
    this.table = `${sqlIdentifier(connection.database)}.${sqlIdentifier(DATA_TABLE)}`;
    this.metaTable = `${sqlIdentifier(connection.database)}.${sqlIdentifier(META_TABLE)}`;
  }

  /** Connects and reads the loaded dataset's metadata; a clear `unavailable` when nothing is loaded there. */
  static async open(target: ClickHouseTarget, options: ClickHouseEngineOptions = {}): Promise<ClickHouseEngine> {
    const connection = new ClickHouseConnection(target);
    try {
      const meta = await ClickHouseEngine.readMeta(connection);
      return new ClickHouseEngine(connection, meta, options);
    } catch (error) {
      await connection.close();
      throw error;
    }
  }

  private static async readMeta(connection: ClickHouseConnection): Promise<Meta> {
    const metaTable = `${sqlIdentifier(connection.database)}.${sqlIdentifier(META_TABLE)}`;
    let rows: string[][];
    try {
      rows = await connection.rows(`SELECT key, value FROM ${metaTable}`);
    } catch (error) {
      if (clickhouseCode(error) === UNKNOWN_TABLE || clickhouseCode(error) === 81)
        throw new AppError(
          'unavailable',
          `No dataset is loaded in database ${connection.database} at ${shownAddress(connection.url)}: run \`cli clickhouse load\` first.`,
        );
      throw error;
    }
    const map = new Map(rows.map(([k, v]) => [tsvUnescape(k!), tsvUnescape(v ?? '')]));
    return {
      loadId: map.get('load_id') ?? '',
      createdAt: map.get('created_at') || null,
      source: map.get('source') ?? '',
      hashed: new Set(JSON.parse(map.get('hashed_fields') ?? '[]') as string[]),
    };
  }

  /** Drops every cached answer when a new load replaced the dataset since the last look. */
  private async fresh(): Promise<void> {
    if (Date.now() - this.checkedAt < FRESHNESS_MS) return;
    this.checkedAt = Date.now();
    const meta = await this.retrying(() => ClickHouseEngine.readMeta(this.connection));
    if (meta.loadId !== this.meta.loadId) {
      this.meta = meta;
      this.cache = new LruCache<Cached>(this.options.cacheBytes ?? CACHE_BYTES, 4096);
      this.matched.clear();
      this.zipCentres.clear();
    }
  }

  /** A query, tried once more if the table vanished for the instant a load renames it. */
  private async retrying<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (clickhouseCode(error) !== UNKNOWN_TABLE) throw error;
      await new Promise((r) => setTimeout(r, 200));
      return work();
    }
  }

  private rows(sql: string, budget = false): Promise<string[][]> {
    const settings = budget && this.options.queryBudgetSeconds ? { max_execution_time: this.options.queryBudgetSeconds } : {};
    return this.retrying(() => this.connection.rows(sql, settings));
  }

  private cached<T extends Cached>(key: string): T | undefined {
    return this.cache.get(key) as T | undefined;
  }

  // ---- Summary ---------------------------------------------------------------------------------

  async summary(): Promise<DatasetSummary> {
    await this.fresh();
    const rows = await this.rows(`SELECT STATE, count() FROM ${this.table} GROUP BY STATE ORDER BY STATE`);
    const states = rows.map(([state, count]) => ({ state: tsvUnescape(state!), count: Number(count) }));
    states.sort((a, b) => (a.state < b.state ? -1 : 1));
    return {
      source: `clickhouse ${shownAddress(this.connection.url)}/${this.connection.database}`,
      records: states.reduce((n, s) => n + s.count, 0),
      states,
      createdAt: this.meta.createdAt,
    };
  }

  // ---- Who matches -----------------------------------------------------------------------------

  /** How many match the state and filters alone. */
  private async filteredCount(audience: Audience): Promise<number> {
    const key = `count:${audienceKey(audience)}`;
    const hit = this.cached<CountEntry>(key);
    if (hit) return hit.total;
    const [[count]] = (await this.rows(`SELECT count() FROM ${this.table} WHERE ${audienceWhere(audience)}`)) as [[string]];
    const total = Number(count);
    this.cache.set(key, { bytes: 64, total } as CountEntry);
    return total;
  }

  /** The PID of every `step`-th match (0, step, 2·step, …) of the state and filters, and their count. */
  private async bookmarks(audience: Audience, step: number): Promise<BookmarkEntry> {
    const key = `marks:${step}:${audienceKey(audience)}`;
    const hit = this.cached<BookmarkEntry>(key);
    if (hit) return hit;
    // One sorted array of the matches' PIDs on the server, of which only every step-th comes back.
    const [[marks, total]] = (await this.rows(
      `SELECT arrayFilter((p, i) -> (i - 1) % ${step} = 0, s, arrayEnumerate(s)), length(s) ` +
        `FROM (SELECT arraySort(groupArray(PID)) AS s FROM ${this.table} WHERE ${audienceWhere(audience)})`,
    )) as [[string, string]];
    const entry: BookmarkEntry = { marks: parsePidArray(marks), total: Number(total), bytes: 64 + (Number(total) / step) * 48 };
    this.cache.set(key, entry);
    return entry;
  }

  /**
   * SQL for the matches skip .. skip+limit-1 of the state and filters, in PID order, selecting
   * `columns`: from the start for a shallow page, else from the bookmark before it.
   */
  private async pageSql(audience: Audience, columns: string, skip: number, limit: number): Promise<string | null> {
    let where = audienceWhere(audience);
    let offset = skip;
    const step = this.options.bookmarkStep ?? BOOKMARK_STEP;
    if (skip >= step) {
      const { marks } = await this.bookmarks(audience, step);
      const index = Math.floor(skip / step);
      if (index >= marks.length) return null;
      where += ` AND PID >= ${sqlString(marks[index]!)}`;
      offset = skip - index * step;
    }
    return `SELECT ${columns} FROM ${this.table} WHERE ${where} ORDER BY PID LIMIT ${offset}, ${limit}`;
  }

  /** Every match of the state and filters, in PID order, with some columns. */
  private filteredRows(audience: Audience, columns: string): Promise<string[][]> {
    return this.rows(`SELECT ${columns} FROM ${this.table} WHERE ${audienceWhere(audience)} ORDER BY PID`);
  }

  /** The audience's people after its list controls (extensions.md's order), as PIDs in PID order. */
  private async controlledList(audience: Audience, controls: ResolvedControls): Promise<ListEntry> {
    const key = `list:${audienceKey(audience)}#${controls.key}`;
    const hit = this.cached<ListEntry>(key);
    if (hit) return hit;
    const columns = ['PID'];
    if (controls.near) columns.push('LATITUDE_BITS', 'LONGITUDE_BITS');
    if (controls.contact.phone) columns.push(CALLABLE_SQL);
    if (controls.contact.mail) columns.push(DELIVERABLE_SQL);
    if (controls.households === 'one') columns.push('HHID');
    const rows = await this.filteredRows(audience, columns.join(', '));
    const at = (name: string): number => columns.indexOf(name);
    const pids = rows.map((r) => r[0]!);
    const list = new Uint32Array(rows.length);
    for (let k = 0; k < list.length; k++) list[k] = k;
    let n = list.length;
    if (controls.near) {
      const coordinates = new Float64Array(rows.length * 2);
      rows.forEach((r, k) => {
        coordinates[k * 2] = floatFromBits(r[1]!);
        coordinates[k * 2 + 1] = floatFromBits(r[2]!);
      });
      n = keepNear(list, n, coordinates, 0, controls.near);
    }
    const matched = n;
    if (controls.contact.phone) {
      const c = at(CALLABLE_SQL);
      n = keepWhere(list, n, (k) => rows[k]![c] === '1');
    }
    if (controls.contact.mail) {
      const c = at(DELIVERABLE_SQL);
      n = keepWhere(list, n, (k) => rows[k]![c] === '1');
    }
    for (const exclusion of controls.exclusions) {
      const excluded = await this.excluded(exclusion, audience.state);
      n = keepWhere(list, n, (k) => !excluded.has(pids[k]!));
    }
    const afterExclusions = n;
    if (controls.households === 'one') {
      const c = at('HHID');
      const seen = new Map<string, number>();
      const households = new Uint32Array(rows.length);
      rows.forEach((r, k) => {
        let h = seen.get(r[c]!);
        if (h === undefined) seen.set(r[c]!, (h = seen.size));
        households[k] = h;
      });
      n = onePerHousehold(list, n, households, 0);
    }
    const afterHouseholds = n;
    if (controls.sample) n = applySample(list, n, controls.sample);
    const kept = Array.from(list.subarray(0, n), (k) => tsvUnescape(pids[k]!));
    const entry: ListEntry = { pids: kept, steps: { matched, afterExclusions, afterHouseholds, total: n }, bytes: 256 + kept.length * 80 };
    this.cache.set(key, entry);
    return entry;
  }

  /** The PIDs of an audience (with its controls), in PID order. */
  private async pidsOf(audience: Audience): Promise<string[]> {
    if (hasEffect(audience.controls)) return (await this.controlledList(audience, audience.controls)).pids;
    return (await this.filteredRows(audience, 'PID')).map((r) => tsvUnescape(r[0]!));
  }

  /** The PIDs of a state an exclusion names. */
  private async excluded(exclusion: Exclusion, state: string): Promise<Set<string>> {
    if (exclusion.kind === 'people') return this.matching(exclusion.matcher, state);
    // A saved audience of another state names nobody here.
    if (exclusion.audience.state !== state) return new Set();
    return new Set(await this.pidsOf(exclusion.audience));
  }

  /** Rows of some fields (typed values) of a state's records, or of every record, with their PIDs. */
  private async *fieldRows(
    fields: readonly string[],
    state: string | null,
  ): AsyncIterable<{ pid: string; values: Array<string | number> }> {
    const plans = fields.map((name) => COLUMN_PLANS[fieldIndex(name)]!);
    const columns = ['PID', ...plans.map((p) => sqlIdentifier(p.stored))].join(', ');
    const where = state === null ? '' : ` WHERE STATE = ${sqlString(state)}`;
    for await (const rows of this.connection.streamRows(`SELECT ${columns} FROM ${this.table}${where}`)) {
      for (const row of rows) yield { pid: tsvUnescape(row[0]!), values: plans.map((p, i) => valueOf(p.field.type, row[i + 1]!)) };
    }
  }

  /** The people of a state a matcher names, read once from their records and kept. */
  private async matching(matcher: RecordMatcher, state: string): Promise<Set<string>> {
    const key = `${matcher.key}|${state}`;
    let set = this.matched.get(key);
    if (set) return set;
    set = new Set();
    for await (const { pid, values } of this.fieldRows(matcher.fields, state)) if (matcher.matches(values)) set.add(pid);
    this.matched.set(key, set);
    return set;
  }

  async count(audience: Audience): Promise<number> {
    return (await this.steps(audience)).total;
  }

  async steps(audience: Audience): Promise<AudienceSteps> {
    assertResolved(audience);
    await this.fresh();
    if (hasEffect(audience.controls)) return (await this.controlledList(audience, audience.controls)).steps;
    const total = await this.filteredCount(audience);
    return { matched: total, afterExclusions: total, afterHouseholds: total, total };
  }

  async zipCentre(zip: string): Promise<{ lat: number; lon: number } | undefined> {
    await this.fresh();
    if (this.zipCentres.has(zip)) return this.zipCentres.get(zip);
    // Summed in (STATE, PID) order, as the embedded engine does, so the mean is the same double.
    const rows = await this.rows(
      `SELECT LATITUDE_BITS, LONGITUDE_BITS FROM ${this.table} WHERE ZIP = ${sqlString(zip)} ORDER BY STATE, PID`,
    );
    let lat = 0;
    let lon = 0;
    for (const [a, b] of rows) {
      lat += floatFromBits(a!);
      lon += floatFromBits(b!);
    }
    const centre = rows.length > 0 ? { lat: lat / rows.length, lon: lon / rows.length } : undefined;
    this.zipCentres.set(zip, centre);
    return centre;
  }

  async countMatching(matcher: RecordMatcher): Promise<number> {
    await this.fresh();
    let people = 0;
    for await (const { values } of this.fieldRows(matcher.fields, null)) if (matcher.matches(values)) people++;
    return people;
  }

  // ---- Pages -------------------------------------------------------------------------------------

  /** The PIDs of one page and the audience's total. */
  private async pagePids(audience: Audience, skip: number, limit: number): Promise<{ total: number; pids: string[] }> {
    if (hasEffect(audience.controls)) {
      const { pids, steps } = await this.controlledList(audience, audience.controls);
      return { total: steps.total, pids: pids.slice(skip, skip + limit) };
    }
    const [total, sql] = await Promise.all([this.filteredCount(audience), limit > 0 ? this.pageSql(audience, 'PID', skip, limit) : null]);
    if (sql === null || skip >= total) return { total, pids: [] };
    return { total, pids: (await this.rows(sql, true)).map((r) => tsvUnescape(r[0]!)) };
  }

  /** Some columns of the records with these PIDs (ascending) in a state, in PID order. */
  private async byPid(state: string, pids: readonly string[], columns: string): Promise<string[][]> {
    const out: string[][] = [];
    for (let from = 0; from < pids.length; from += IN_LIST_MAX) {
      const part = pids.slice(from, from + IN_LIST_MAX);
      const rows = await this.rows(
        `SELECT ${columns} FROM ${this.table} WHERE STATE = ${sqlString(state)} AND PID IN ${sqlStringList(part)} ORDER BY PID`,
        true,
      );
      if (rows.length !== part.length)
        throw new AppError('unavailable', 'The ClickHouse dataset changed while a page was read; try again.');
      out.push(...rows);
    }
    return out;
  }

  async previewPage(audience: Audience, skip: number, limit: number): Promise<{ total: number; results: PreviewRecord[] }> {
    assertResolved(audience);
    await this.fresh();
    if (!hasEffect(audience.controls)) {
      const [total, sql] = await Promise.all([
        this.filteredCount(audience),
        limit > 0 ? this.pageSql(audience, PREVIEW_SQL, skip, limit) : null,
      ]);
      if (sql === null || skip >= total) return { total, results: [] };
      return { total, results: (await this.rows(sql, true)).map(previewOf) };
    }
    const { total, pids } = await this.pagePids(audience, skip, limit);
    return { total, results: (await this.byPid(audience.state, pids, PREVIEW_SQL)).map(previewOf) };
  }

  async recordPage(audience: Audience, skip: number, limit: number): Promise<{ total: number; records: Buffer[] }> {
    assertResolved(audience);
    await this.fresh();
    const { total, pids } = await this.pagePids(audience, skip, limit);
    const rows = await this.byPid(audience.state, pids, STORED_COLUMNS_SQL);
    return { total, records: rows.map((r) => Buffer.from(recordJson(r), 'utf8')) };
  }

  async records(audience: Audience): Promise<RecordStream> {
    assertResolved(audience);
    await this.fresh();
    if (hasEffect(audience.controls)) {
      const { pids } = await this.controlledList(audience, audience.controls);
      const read = (part: string[]) => this.byPid(audience.state, part, STORED_COLUMNS_SQL);
      return {
        total: pids.length,
        async *batches(batchSize: number): AsyncIterable<string[]> {
          const size = Math.min(batchSize, IN_LIST_MAX);
          for (let from = 0; from < pids.length; from += size) yield (await read(pids.slice(from, from + size))).map(recordJson);
        },
      };
    }
    const { marks, total } = await this.bookmarks(audience, this.options.exportChunk ?? EXPORT_CHUNK);
    const where = audienceWhere(audience);
    const table = this.table;
    const rows = (sql: string) => this.rows(sql);
    return {
      total,
      async *batches(batchSize: number): AsyncIterable<string[]> {
        // Each chunk is the range of PIDs between two bookmarks: a range read of at most EXPORT_CHUNK records.
        for (let i = 0; i < marks.length; i++) {
          const upper = i + 1 < marks.length ? ` AND PID < ${sqlString(marks[i + 1]!)}` : '';
          const chunk = await rows(
            `SELECT ${STORED_COLUMNS_SQL} FROM ${table} WHERE ${where} AND PID >= ${sqlString(marks[i]!)}${upper} ORDER BY PID`,
          );
          for (let from = 0; from < chunk.length; from += batchSize) yield chunk.slice(from, from + batchSize).map(recordJson);
        }
      },
    };
  }

  // ---- Breakdowns --------------------------------------------------------------------------------

  /** Counts of an audience by some columns' values (the columns' TSV texts joined by tabs as the key). */
  private async groupCounts(audience: Audience, columns: string[]): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    const list = columns.join(', ');
    if (!hasEffect(audience.controls)) {
      const rows = await this.rows(`SELECT ${list}, count() FROM ${this.table} WHERE ${audienceWhere(audience)} GROUP BY ${list}`);
      for (const row of rows) counts.set(row.slice(0, -1).join('\t'), Number(row[row.length - 1]));
      return counts;
    }
    const { pids } = await this.controlledList(audience, audience.controls);
    const kept = new Set(pids);
    for (const row of await this.filteredRows(audience, `PID, ${list}`)) {
      if (!kept.has(tsvUnescape(row[0]!))) continue;
      const key = row.slice(1).join('\t');
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return counts;
  }

  async valueCounts(audience: Audience, index: number, max: number): Promise<ValueCount[]> {
    assertResolved(audience);
    await this.fresh();
    const def = FIELDS[index];
    if (!def || def.type === 'number') return [];
    // A field with a different value for nearly everyone has no breakdown worth drawing (as embedded).
    if (this.meta.hashed.has(def.name)) return [];
    const counts = await this.groupCounts(audience, [sqlIdentifier(def.name)]);
    const out: ValueCount[] = [...counts].map(([text, count]) => ({ value: valueOf(def.type, text), count }));
    out.sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : 1));
    return out.slice(0, max);
  }

  async crossTab(audience: Audience, rowField: number, columnField: number, max: number): Promise<CrossTabCounts> {
    assertResolved(audience);
    await this.fresh();
    const axes = [this.axis(rowField, 'rows'), this.axis(columnField, 'columns')];
    const counts = await this.groupCounts(audience, [sqlIdentifier(FIELDS[rowField]!.name), sqlIdentifier(FIELDS[columnField]!.name)]);
    const total = await this.count(audience);
    const totals = [new Map<string, number>(), new Map<string, number>()];
    const cells = new Map<string, number>();
    for (const [text, count] of counts) {
      const [r, c] = text.split('\t').map((t, i) => axes[i]!.key(t)) as [string | null, string | null];
      if (r !== null) totals[0]!.set(r, (totals[0]!.get(r) ?? 0) + count);
      if (c !== null) totals[1]!.set(c, (totals[1]!.get(c) ?? 0) + count);
      if (r !== null && c !== null) cells.set(`${r}\t${c}`, (cells.get(`${r}\t${c}`) ?? 0) + count);
    }
    const kept = axes.map((axis, i) =>
      [...totals[i]!]
        .sort((a, b) => b[1] - a[1] || axis.tie(a[0], b[0]))
        .slice(0, max)
        .map(([key]) => key)
        .sort(axis.order),
    ) as [string[], string[]];
    return {
      rowValues: kept[0].map(axes[0]!.label),
      columnValues: kept[1].map(axes[1]!.label),
      counts: kept[0].map((r) => kept[1].map((c) => cells.get(`${r}\t${c}`) ?? 0)),
      total,
    };
  }

  /** A cross-tab axis as src/core/query/crossTab.ts draws it: AGE in bands, codes in the codebook's order, integers by value. */
  private axis(index: number, key: 'rows' | 'columns') {
    const def = FIELDS[index]!;
    if (def.type === 'number' || this.meta.hashed.has(def.name))
      throw new AppError('invalid_request', `${def.name} has a different value for nearly everyone; choose a coded field.`, key);
    if (def.name === 'AGE') {
      const band = (k: string) => Number(k);
      return {
        key: (text: string) => {
          const i = AGE_BANDS.indexOf(ageBandOf(Number(text))!);
          return i < 0 ? null : String(i);
        },
        label: (k: string): string | number => AGE_BANDS[band(k)]!.label,
        order: (a: string, b: string) => band(a) - band(b),
        tie: (a: string, b: string) => band(a) - band(b),
      };
    }
    if (def.type === 'integer')
      return {
        key: (text: string) => text,
        label: (k: string): string | number => Number(k),
        order: (a: string, b: string) => Number(a) - Number(b),
        tie: (a: string, b: string) => Number(a) - Number(b),
      };
    const compare = compareCodes(def.name);
    return {
      key: (text: string) => text,
      label: (k: string): string | number => tsvUnescape(k),
      order: (a: string, b: string) => compare(tsvUnescape(a), tsvUnescape(b)),
      // The embedded engine breaks a tie in count by dictionary code (first appearance); here by value.
      tie: (a: string, b: string) => (tsvUnescape(a) < tsvUnescape(b) ? -1 : tsvUnescape(a) > tsvUnescape(b) ? 1 : 0),
    };
  }

  close(): void {
    void this.connection.close();
  }
}
