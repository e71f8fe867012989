// The embedded engine: audiences over one open dataset file. Filters become predicates over the
// fields' vectors (AND across entries, OR within one, as decisions.md says); the matched positions
// of recent audiences are cached, so a page at any depth is a slice plus one read of its records.
import type { PreviewRecord, ValueCount } from '../../shared/contract';
import { audienceKey } from '../../shared/audienceRequest';
import { AppError } from '../../shared/errors';
import { FIELDS } from '../../shared/fields';
import type { Audience, AudienceEngine, DatasetSummary, RecordStream } from '../audience/engine';
import type { Dataset } from '../dataset/dataset';
import { LruCache } from './lruCache';
import { DictionaryIndex, compilePredicate, refine, scan, verifyHashed } from './predicates';
import { EMPTY_SELECTION, ListSelection, RangeSelection, type Selection } from './selection';

const SELECTION_CACHE_BYTES = 128 * 1024 * 1024;

/** What one preview or search may spend matching and reading before it is refused (SECURITY.md). */
export const DEFAULT_QUERY_BUDGET_MS = 5_000;

export interface EngineOptions {
  /** Checked between filter passes and before the page read; past it the query answers 503 `unavailable`. */
  queryBudgetMs?: number;
  /** Bytes of matched positions kept for recent audiences; 0 turns the cache off (benchmarks). */
  selectionCacheBytes?: number;
}

/** A check that throws once the budget is spent; a no-op without a finite budget. */
function budgetCheck(budgetMs: number | undefined): () => void {
  if (budgetMs === undefined || !Number.isFinite(budgetMs)) return () => undefined;
  const started = performance.now();
  return () => {
    if (performance.now() - started >= budgetMs)
      throw new AppError('unavailable', `The query exceeded its time budget of ${budgetMs} ms; use more selective filters or try again.`);
  };
}

export class EmbeddedEngine implements AudienceEngine {
  private readonly cache: LruCache<Selection>;
  private readonly dictionaries: DictionaryIndex;

  constructor(
    readonly dataset: Dataset,
    private readonly options: EngineOptions = {},
  ) {
    this.cache = new LruCache<Selection>(options.selectionCacheBytes ?? SELECTION_CACHE_BYTES);
    this.dictionaries = new DictionaryIndex(dataset);
  }

  /** The matching positions of an audience, from the cache when it was asked for recently. */
  select(audience: Audience, checkBudget: () => void = () => undefined): Selection {
    const range = this.dataset.stateRange(audience.state);
    if (audience.filters.length === 0) return new RangeSelection(range.first, range.count);
    const key = audienceKey(audience);
    const cached = this.cache.get(key);
    if (cached) return cached;
    const selection = this.evaluate(audience, range.first, range.first + range.count, checkBudget);
    this.cache.set(key, selection);
    return selection;
  }

  private evaluate(audience: Audience, first: number, end: number, checkBudget: () => void): Selection {
    const predicates = [];
    for (const filter of audience.filters) {
      const p = compilePredicate(this.dataset, this.dictionaries, filter);
      if (!p) return EMPTY_SELECTION;
      predicates.push(p);
    }
    if (end <= first) return EMPTY_SELECTION;
    const list = new Uint32Array(end - first);
    let n = scan(predicates[0]!, first, end, list);
    checkBudget();
    for (let k = 1; k < predicates.length && n > 0; k++) {
      n = refine(predicates[k]!, list, n);
      checkBudget();
    }
    n = verifyHashed(this.dataset, predicates, list, n);
    // Keep a right-sized copy so the cache does not hold a whole state's worth per audience.
    return new ListSelection(list.slice(0, n));
  }

  summary(): DatasetSummary {
    const states = this.dataset
      .stateCounts()
      .map((r) => ({ state: r.state, count: r.count }))
      .sort((a, b) => (a.state < b.state ? -1 : 1));
    return { source: this.dataset.path, records: this.dataset.records, states, createdAt: this.dataset.meta.created_at ?? null };
  }

  count(audience: Audience): number {
    return this.select(audience).total;
  }

  previewPage(audience: Audience, skip: number, limit: number): { total: number; results: PreviewRecord[] } {
    const { total, positions } = this.page(audience, skip, limit);
    const rows = this.dataset.previewRows(positions);
    return {
      total,
      results: rows.map((r) => ({
        pid: r[0] as string,
        fname: r[1] as string,
        lname: r[2] as string,
        city: r[3] as string,
        state: r[4] as string,
      })),
    };
  }

  recordPage(audience: Audience, skip: number, limit: number): { total: number; records: Buffer[] } {
    const { total, positions } = this.page(audience, skip, limit);
    return { total, records: this.dataset.recordBytes(positions) };
  }

  /** The matches' count and the positions of one page, within the query budget. */
  private page(audience: Audience, skip: number, limit: number): { total: number; positions: ArrayLike<number> } {
    const checkBudget = budgetCheck(this.options.queryBudgetMs);
    const selection = this.select(audience, checkBudget);
    checkBudget();
    return { total: selection.total, positions: selection.page(skip, limit) };
  }

  records(audience: Audience): RecordStream {
    const selection = this.select(audience);
    const dataset = this.dataset;
    return {
      total: selection.total,
      async *batches(batchSize: number): AsyncIterable<string[]> {
        for (let skip = 0; skip < selection.total; skip += batchSize) yield dataset.recordTexts(selection.page(skip, batchSize));
      },
    };
  }

  close(): void {
    this.dataset.close();
  }

  /** How many matching records have each value of a field, most frequent first. */
  valueCounts(audience: Audience, fieldIndex: number, max: number): ValueCount[] {
    const def = FIELDS[fieldIndex];
    if (!def || def.type === 'number') return [];
    const column = this.dataset.column(fieldIndex);
    // A hashed field has (nearly) one value per person: there is no breakdown worth drawing.
    if (column.encoding === 'hash') return [];
    const selection = this.select(audience);
    const counts = new Map<number, number>();
    const data = column.data;
    const total = selection.total;
    // Walk the selection in pages so a whole state never needs a second position list.
    for (let skip = 0; skip < total; skip += 65536) {
      const page = selection.page(skip, 65536);
      for (let k = 0; k < page.length; k++) {
        const v = data[page[k]!]!;
        counts.set(v, (counts.get(v) ?? 0) + 1);
      }
    }
    const out: ValueCount[] = [...counts].map(([v, count]) => ({ value: column.dict ? column.dict[v]! : v, count }));
    out.sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : 1));
    return out.slice(0, max);
  }
}
