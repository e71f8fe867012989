// The ClickHouse engine: the engine interface (src/core/audience/contract/engine.ts) over a dataset loaded
// into a ClickHouse server (load.ts), answering exactly as the embedded engine does.
//
// - Counts and group counts (what breakdowns and cross-tabs are drawn from) are SQL over the state's
//   range of the (STATE, PID_RANK) key.
// - Pages and exports read in PID order by ranges of the (STATE, PID_RANK) key, never an OFFSET from
//   the start; a search reads each record's stored text from one column (pidPages.ts).
// - List controls (extensions.md) run the audience layer's steps over the audience's rows
//   (controlledList.ts), so the same people are chosen as on the embedded engine.
import { audienceKey } from '../../shared/audienceRequest';
import type { AudienceSteps, PreviewRecord } from '../../shared/contract';
import { FIELDS, fieldIndex } from '../../shared/fields';
import { hasEffect, unchangedSteps } from '../audience/contract/controls';
import { assertResolved } from '../audience/contract/engine';
import type {
  Audience,
  AudienceEngine,
  DatasetSummary,
  Exclusion,
  GroupCount,
  RecordMatcher,
  RecordStream,
} from '../audience/contract/engine';
import { DEFAULT_QUERY_BUDGET_MS } from '../audience/contract/queryDefaults';
import { LruCache } from '../cache/lruCache';
import { audienceWhere, manyFieldCountsSql } from './audienceSql';
import { ClickHouseConnection, clickhouseCode, shownAddress, type ClickHouseTarget } from './connection';
import { ServingErrors, type ServingFailure } from './servingErrors';
import { controlledList, type ControlledList } from './controlledList';
import {
  EXPORT_CHUNK,
  PREVIEW_SQL,
  RECORD_SQL,
  byRanks,
  filteredPage,
  filteredRecords,
  previewOf,
  rankListRecords,
  recordBytes,
} from './pidPages';
import { COLUMN_PLANS, storedColumn, storedColumns } from './schema';
import { detectDialect, type ServerDialect } from './serverDialect';
import { sqlIdentifier } from './sqlLiteral';
import { SqlValues } from './sqlValues';
import { filteredRows, isLocalTable, type Cached, type Sql, type TableReads } from './tableReads';
import { keptCombinations, keptFieldCounts } from './keptTallies';
import { DATA_TABLE, readLoadedMeta, UNKNOWN_TABLE, type LoadedMeta } from './loadedMeta';
import { tsvUnescape } from './tsv';
import { floatFromBits, valueOf } from './values';

const CACHE_BYTES = 128 * 1024 * 1024;
/** How often the engine asks whether a new load replaced the dataset (its caches would be stale). */
const FRESHNESS_MS = 2_000;
/**
 * Failures a read survives by asking again: the table renamed away for an instant, and a replica that
 * stopped while a Distributed query read from it (the next try goes to a replica that answers):
 * ATTEMPT_TO_READ_AFTER_EOF, SOCKET_TIMEOUT, NETWORK_ERROR, ALL_CONNECTION_TRIES_FAILED, and the
 * server's wrapping of a remote failure (POCO_EXCEPTION).
 */
const TRANSIENT = new Set([UNKNOWN_TABLE, 32, 209, 210, 279, 1000]);
const TRIES = 3;

interface CountEntry extends Cached {
  total: number;
}

export interface ClickHouseEngineOptions {
  /** Seconds a preview or search may run on the server (max_execution_time). */
  queryBudgetSeconds?: number;
  /** Bytes of counts, bookmarks and PID lists kept for recent audiences; 0 turns caching off (benchmarks). */
  cacheBytes?: number;
  /** Records an export chunk reads (EXPORT_CHUNK); small values exist for tests. */
  exportChunk?: number;
}

export class ClickHouseEngine implements AudienceEngine {
  private cache: LruCache<Cached>;
  private meta: LoadedMeta;
  /** The data table is a MergeTree of this node, not a Distributed table (TableReads.localTable). */
  private localTable: boolean;
  private checkedAt = Date.now();
  private readonly matched = new Map<string, Set<string>>();
  private readonly zipCentres = new Map<string, { lat: number; lon: number } | undefined>();
  private readonly table: string;
  private readonly options: ClickHouseEngineOptions;
  /** The table, its queries and the cache, as pidPages.ts and controlledList.ts read them. */
  private readonly reads: TableReads;
  /** The server's failures, kept from API clients (a neutral 503) and logged (servingErrors.ts). */
  private readonly failures: ServingErrors;

  private constructor(
    private readonly connection: ClickHouseConnection,
    /** What the server's version offers: query parameters or literals for request values (serverDialect.ts). */
    private readonly dialect: ServerDialect,
    meta: LoadedMeta,
    localTable: boolean,
    options: ClickHouseEngineOptions,
  ) {
    this.meta = meta;
    this.localTable = localTable;
    // The embedded engine's budget for one preview or search (SECURITY.md), unless told otherwise.
    this.options = { queryBudgetSeconds: DEFAULT_QUERY_BUDGET_MS / 1000, ...options };
    this.cache = new LruCache<Cached>(options.cacheBytes ?? CACHE_BYTES, 4096);
    const budget = this.options.queryBudgetSeconds;
    this.failures = new ServingErrors(budget ? budget * 1000 : undefined);
    this.table = `${sqlIdentifier(connection.database)}.${sqlIdentifier(DATA_TABLE)}`;
    this.reads = {
      table: this.table,
      localTable: () => this.localTable,
      rows: (sql, budget) => this.rows(sql, budget),
      // The engine's cache of the moment: fresh() replaces it after a new load.
      cached: <T extends Cached>(key: string) => this.cache.get(key) as T | undefined,
      remember: (key, entry) => this.cache.set(key, entry),
    };
  }

  /** Connects and reads the loaded dataset's metadata; a clear `unavailable` when nothing is loaded there. */
  static async open(target: ClickHouseTarget, options: ClickHouseEngineOptions = {}): Promise<ClickHouseEngine> {
    const connection = new ClickHouseConnection(target);
    try {
      const meta = await readLoadedMeta(connection);
      const dialect = await detectDialect(connection, connection.database);
      return new ClickHouseEngine(connection, dialect, meta, await isLocalTable(connection, DATA_TABLE), options);
    } catch (error) {
      await connection.close();
      throw error;
    }
  }

  /** Drops every cached answer when a new load replaced the dataset since the last look. */
  private async fresh(): Promise<void> {
    if (Date.now() - this.checkedAt < FRESHNESS_MS) return;
    this.checkedAt = Date.now();
    const meta = await this.retrying(() => readLoadedMeta(this.connection)).catch((error: unknown) => {
      throw this.failures.neutral(error);
    });
    if (meta.loadId !== this.meta.loadId) {
      this.meta = meta;
      this.localTable = await this.retrying(() => isLocalTable(this.connection, DATA_TABLE)).catch((error: unknown) => {
        throw this.failures.neutral(error);
      });
      this.cache = new LruCache<Cached>(this.options.cacheBytes ?? CACHE_BYTES, 4096);
      this.matched.clear();
      this.zipCentres.clear();
    }
  }

  /** A query, tried again (TRIES in all) after a failure it can survive (TRANSIENT). */
  private async retrying<T>(work: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await work();
      } catch (error) {
        if (attempt >= TRIES || !TRANSIENT.has(clickhouseCode(error) ?? -1)) throw error;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }

  /**
   * A query's rows; its request values bound as query parameters where the server has them, else literals.
   * `budget`: a preview's or search's query, within its time budget; `short`: a count's or a page's, read
   * through the server's cache of uncompressed blocks (the columns the last counts and pages read).
   */
  private rows(sql: Sql, budget = false, short = budget): Promise<string[][]> {
    const settings: Record<string, number> = short ? { use_uncompressed_cache: 1 } : {};
    if (budget && this.options.queryBudgetSeconds) settings.max_execution_time = this.options.queryBudgetSeconds;
    const values = new SqlValues(this.dialect.queryParameters);
    const text = typeof sql === 'string' ? sql : sql(values);
    return this.retrying(() => this.connection.rows(text, settings, values.params)).catch((error: unknown) => {
      throw this.failures.neutral(error);
    });
  }

  /** The last failure of the server that an API client was answered a neutral 503 for (the Data source screen shows it). */
  get lastFailure(): ServingFailure | null {
    return this.failures.last;
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
    const hit = this.reads.cached<CountEntry>(key);
    if (hit) return hit.total;
    const [[count]] = (await this.rows((v) => `SELECT count() FROM ${this.table} WHERE ${audienceWhere(audience, v)}`, false, true)) as [
      [string],
    ];
    const total = Number(count);
    this.reads.remember(key, { bytes: 64, total } as CountEntry);
    return total;
  }

  /** The audience's people after its list controls (controlledList.ts); null when they change nothing. */
  private controlled(audience: Audience): Promise<ControlledList> | null {
    if (!hasEffect(audience.controls)) return null;
    return controlledList(this.reads, audience, audience.controls, (exclusion, state) => this.excluded(exclusion, state));
  }

  /** The PIDs of an audience (with its controls), in PID order. */
  private async pidsOf(audience: Audience): Promise<string[]> {
    const list = await this.controlled(audience);
    if (list) return list.pids;
    return (await filteredRows(this.reads, audience, 'PID')).map((r) => tsvUnescape(r[0]!));
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
    const values = new SqlValues(this.dialect.queryParameters);
    const where = state === null ? '' : ` WHERE STATE = ${values.string(state)}`;
    try {
      for await (const rows of this.connection.streamRows(`SELECT ${columns} FROM ${this.table}${where}`, values.params)) {
        for (const row of rows) yield { pid: tsvUnescape(row[0]!), values: plans.map((p, i) => valueOf(p.field.type, row[i + 1]!)) };
      }
    } catch (error) {
      throw this.failures.neutral(error);
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
    const list = await this.controlled(audience);
    return list ? list.steps : unchangedSteps(await this.filteredCount(audience));
  }

  async zipCentre(zip: string): Promise<{ lat: number; lon: number } | undefined> {
    await this.fresh();
    if (this.zipCentres.has(zip)) return this.zipCentres.get(zip);
    // Summed in (STATE, PID) order, as the embedded engine does, so the mean is the same double.
    const rows = await this.rows(
      (v) => `SELECT LATITUDE_BITS, LONGITUDE_BITS FROM ${this.table} WHERE ZIP = ${v.string(zip)} ORDER BY STATE, PID`,
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

  /** Rows of `columns` of one page of the audience and its total: its list controls' people, or its matches. */
  private async page(audience: Audience, columns: string, skip: number, limit: number): Promise<{ total: number; rows: string[][] }> {
    const list = await this.controlled(audience);
    if (!list) return filteredPage(this.reads, audience, columns, skip, limit, () => this.filteredCount(audience));
    return { total: list.steps.total, rows: await byRanks(this.reads, audience.state, list.ranks.slice(skip, skip + limit), columns) };
  }

  async previewPage(audience: Audience, skip: number, limit: number): Promise<{ total: number; results: PreviewRecord[] }> {
    assertResolved(audience);
    await this.fresh();
    const { total, rows } = await this.page(audience, PREVIEW_SQL, skip, limit);
    return { total, results: rows.map(previewOf) };
  }

  /** A search's records: each one's stored text, read from one column by primary key. */
  async recordPage(audience: Audience, skip: number, limit: number): Promise<{ total: number; records: Buffer[] }> {
    assertResolved(audience);
    await this.fresh();
    const { total, rows } = await this.page(audience, RECORD_SQL, skip, limit);
    return { total, records: rows.map(recordBytes) };
  }

  async records(audience: Audience): Promise<RecordStream> {
    assertResolved(audience);
    await this.fresh();
    const list = await this.controlled(audience);
    if (list) return rankListRecords(this.reads, audience.state, list.ranks);
    return filteredRecords(this.reads, audience, this.options.exportChunk ?? EXPORT_CHUNK);
  }

  // ---- Group counts ------------------------------------------------------------------------------

  async isHashed(index: number): Promise<boolean> {
    await this.fresh();
    return this.meta.hashed.has(FIELDS[index]!.name);
  }

  async groupCounts(audience: Audience, fieldIndexes: readonly number[]): Promise<GroupCount[]> {
    assertResolved(audience);
    await this.fresh();
    const defs = fieldIndexes.map((i) => FIELDS[i]!);
    const columns = storedColumns(fieldIndexes);
    const group = (texts: string[], count: number): GroupCount => ({ values: texts.map((t, i) => valueOf(defs[i]!.type, t)), count });
    const list = await this.controlled(audience);
    if (list) return keptCombinations(this.reads, audience, new Set(list.pids), fieldIndexes);
    const rows = await this.rows(
      (v) => `SELECT ${columns}, count() FROM ${this.table} WHERE ${audienceWhere(audience, v)} GROUP BY ${columns}`,
    );
    return rows.map((row) => group(row.slice(0, -1), Number(row[row.length - 1])));
  }

  /**
   * Each field alone. Without list controls, one query: every matching row gives a (field, value) pair
   * a field, grouped together, so a profile of a hundred fields is one scan, not a hundred round trips.
   * With list controls, the kept people's values tallied here (keptTallies.ts).
   */
  async groupCountsMany(audience: Audience, fieldIndexes: readonly number[]): Promise<GroupCount[][]> {
    assertResolved(audience);
    await this.fresh();
    const list = await this.controlled(audience);
    if (list) return keptFieldCounts(this.reads, audience, new Set(list.pids), fieldIndexes);
    const defs = fieldIndexes.map((i) => FIELDS[i]!);
    const out: GroupCount[][] = defs.map(() => []);
    if (defs.length === 0) return out;
    const rows = await this.rows((v) => manyFieldCountsSql(this.table, fieldIndexes.map(storedColumn), audienceWhere(audience, v)));
    for (const [f, text, count] of rows) {
      const at = Number(f);
      out[at]!.push({ values: [valueOf(defs[at]!.type, text!)], count: Number(count) });
    }
    return out;
  }

  close(): void {
    void this.connection.close();
  }
}
