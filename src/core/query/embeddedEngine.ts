// The embedded engine: audiences over one open dataset file. Filters become predicates over the
// fields' vectors (AND across entries, OR within one, as decisions.md says); the matched positions
// of recent audiences are cached, so a page at any depth is a slice plus one read of its records.
// The list controls' steps and the shapes of breakdowns and cross-tabs are the audience layer's
// (audience/contract/listSteps.ts, breakdown.ts, crossTab.ts); this engine supplies what they are drawn from.
import type { AudienceSteps, PreviewRecord, ValueCount } from '../../shared/contract';
import { audienceKey } from '../../shared/audienceRequest';
import { FIELDS } from '../../shared/fields';
import { mostFrequent, valueCountsOf } from '../audience/contract/breakdown';
import { controlledKey, hasEffect, unchangedSteps } from '../audience/contract/controls';
import { checkAxis, crossTabOf, type CrossTabCounts } from '../audience/contract/crossTab';
import {
  assertResolved,
  type Audience,
  type AudienceEngine,
  type DatasetSummary,
  type Exclusion,
  type GroupCount,
  type KeyedCandidates,
  type ListKeySets,
  type RecordMatcher,
  type RecordStream,
  type ResolvedControls,
} from '../audience/contract/engine';
import { runListSteps } from '../audience/contract/listSteps';
import { LruCache } from '../cache/lruCache';
import { availableParallelism } from 'node:os';
import { settings } from '../config';
import type { Dataset, StateRange } from '../dataset/read/dataset';
import { stringHash } from '../dataset/codec/columnVector';
import { uint32Set } from '../collections/uint32Table';
import { startBackgroundVerify } from '../dataset/verify/verify';
import { VerifyGate } from '../dataset/verify/verifyGate';
import { groupCounts } from './groupCounts';
import { ascendingPositions, countedPositions, countFields, sharedList } from './fieldCounts';
import { warmPidOrders } from './pidOrderWarmup';
import type { EngineOptions } from './engineOptions';
import { PidPaging } from './pidPaging';
import { writeAheadForFirstRequests } from './writeAhead';
import { readFileAhead, type ReadAheadOutcome } from './fileReadAhead';
import { likeScoresOf } from './likeScores';
import { callableTest, deliverableTest } from './listPrimitives';
import { householdNumbers } from './householdNumbers';
import { keptPerState, type Derived } from './derivedArrays';
import { FilterBits } from './filterBits';
import { matchedMarks } from './matchedPeople';
import { keyedCandidates, recordValues } from './keyedCandidates';
import { DictionaryIndex } from './predicates';
import { warmUpMarks } from './markKernels';
import { warmUpStretchCounts } from './stretchCountJob';
import { warmUpScans } from './scanKernels';
import { StateFilters } from './stateFilters';
import { budgetCheck } from './queryBudget';
import { ZipCentres, type ZipCentre } from './zipCentres';
import { TwoCoreScan } from './twoCoreScan';
import { ascendingBatches } from './pidOrder';
import { EMPTY_SELECTION, ListSelection, type Selection } from './selection';

export type { EngineOptions } from './engineOptions';

// Where it was defined before the audience layer held it; createCore.ts still imports it from here.
export { DEFAULT_QUERY_BUDGET_MS } from '../audience/contract/queryDefaults';

const SELECTION_CACHE_BYTES = 128 * 1024 * 1024;

/** The final positions of an audience with list controls, and the count after each step. */
class StepSelection extends ListSelection {
  constructor(
    positions: Uint32Array,
    readonly steps: AudienceSteps,
  ) {
    super(positions);
  }
}

export class EmbeddedEngine implements AudienceEngine {
  private readonly cache: LruCache<Selection>;
  private readonly dictionaries: DictionaryIndex;
  /**
   * Per-state arrays read from the file: household numbers (households: "one"), latitude and
   * longitude pairs (near) and the people a matcher names (exclude: lists and exports), by key.
   */
  private readonly derived: LruCache<Derived>;
  /** How selections page in PID order (pidPaging.ts); tests read its stretch counter. */
  readonly paging: PidPaging;
  private readonly zipCentres: ZipCentres;
  /** The audience's filters over its state: counted, listed or marked. */
  private readonly filters: StateFilters;
  /** Large states' scans shared with a second core; null on one core or when turned off. */
  readonly twoCores: TwoCoreScan | null;
  /** Filters' bits, kept from their second ask in a state (filterBits.ts); null when turned off. */
  readonly filterBits: FilterBits | null;
  /** The read-ahead ready() started (fileReadAhead.ts): what it read once done, 'cached' when none was needed, null if it could not. */
  readAhead: Promise<ReadAheadOutcome> | null = null;
  /** Held while a request computes, so the background verify waits (verifyGate.ts). */
  private readonly verifyGate = new VerifyGate();

  constructor(
    readonly dataset: Dataset,
    private readonly options: EngineOptions = {},
  ) {
    this.cache = new LruCache<Selection>(options.selectionCacheBytes ?? SELECTION_CACHE_BYTES);
    const derivedBytes = options.derivedCacheBytes ?? (settings().vectorMemoryMb * 2 ** 20) / 4;
    this.derived = new LruCache<Derived>(derivedBytes);
    this.dictionaries = new DictionaryIndex(dataset);
    this.zipCentres = new ZipCentres(dataset, (range) => this.coordinatesOf(range));
    if (options.backgroundVerify ?? settings().backgroundVerify)
      startBackgroundVerify(dataset, { verified: options.verifiedFiles, gate: this.verifyGate });
    const splitFrom = options.scanSplitFrom ?? settings().scanSplitFrom;
    this.twoCores = splitFrom > 0 && availableParallelism() > 1 ? new TwoCoreScan(splitFrom) : null;
    this.paging = new PidPaging(dataset, this.derived, this.twoCores, options.walkStretch);
    const bits = options.filterBits ?? {};
    this.filterBits = bits ? new FilterBits(this.twoCores, bits.budgetBytes, bits.fromPeople) : null;
    this.filters = new StateFilters(dataset, this.dictionaries, this.twoCores, this.filterBits);
    // The same worker decompresses record blocks of a page and vector chunks of a first use while it is idle (dataset/read/inflateJob.ts).
    dataset.useInflater(this.twoCores);
    dataset.onClose(() => this.twoCores?.stop());
    // The verify's and the warm-up's threads end by themselves at their next step.
    dataset.onClose(() => this.verifyGate.close());
    // Up before the first count when some state will be split, so that count does not run on one core.
    if (this.twoCores && dataset.stateCounts().some((s) => s.count >= splitFrom)) this.twoCores.start();
    if (options.pidOrderWarmup !== false)
      warmPidOrders(dataset, this.derived, this.verifyGate, { ...options.pidOrderWarmup, budgetBytes: derivedBytes });
  }

  /** The positions of an audience after every step (filters, then list controls), from the cache when it was asked for recently. */
  select(audience: Audience, checkBudget: () => void = () => undefined): Selection {
    assertResolved(audience);
    const filtered = this.selectFiltered(audience, checkBudget);
    return hasEffect(audience.controls) ? this.controlled(audience, audience.controls, filtered, checkBudget) : filtered;
  }

  /** The matching positions of a state's filters alone. */
  private selectFiltered(audience: Audience, checkBudget: () => void): Selection {
    const range = this.dataset.stateRange(audience.state);
    if (audience.filters.length === 0) return this.paging.whole(range);
    const key = audienceKey(audience);
    const cached = this.cache.get(key);
    if (cached) return cached;
    const selection = this.evaluate(audience, range, checkBudget);
    this.cache.set(key, selection);
    return selection;
  }

  /** extensions.md's steps over the filtered positions (audience/contract/listSteps.ts), with this file's primitives. */
  private controlled(audience: Audience, controls: ResolvedControls, filtered: Selection, checkBudget: () => void): StepSelection {
    const key = controlledKey(audience, controls);
    const cached = this.cache.get(key);
    if (cached instanceof StepSelection) return cached;
    const range = this.dataset.stateRange(audience.state);
    const { kept, steps } = runListSteps(Uint32Array.from(filtered.page(0, filtered.total)), controls, {
      first: range.first,
      coordinates: () => this.coordinatesOf(range),
      callable: () => callableTest(this.dataset, range),
      deliverable: () => deliverableTest(this.dataset, range),
      excluded: (exclusion) => {
        const marks = this.excluded(exclusion, range);
        return (pos) => marks[pos - range.first] === 1;
      },
      households: () => this.householdsOf(range),
      likeScores: (like) => likeScoresOf(this.dataset, range, like),
      checkBudget,
    });
    const selection = new StepSelection(kept.slice(), steps);
    this.cache.set(key, selection);
    return selection;
  }

  /** One byte a position of the state: 1 for the people an exclusion names. */
  private excluded(exclusion: Exclusion, range: StateRange): Uint8Array {
    if (exclusion.kind === 'people') return this.matching(exclusion.matcher, range);
    const marks = new Uint8Array(range.count);
    // A saved audience of another state names nobody here.
    if (exclusion.audience.state !== range.state) return marks;
    const people = this.select(exclusion.audience);
    for (let skip = 0; skip < people.total; skip += 65536) {
      const page = people.page(skip, 65536);
      for (let k = 0; k < page.length; k++) marks[page[k]! - range.first] = 1;
    }
    return marks;
  }

  /** The people of a state a matcher names (matchedPeople.ts), kept while the budget allows. */
  private matching(matcher: RecordMatcher, range: StateRange): Uint8Array {
    return keptPerState(this.derived, `matched|${matcher.key}|${range.state}`, () =>
      matchedMarks(this.dataset, matcher, range, {
        onlyHashes: () =>
          keptPerState(this.derived, `only|${matcher.key}`, () => uint32Set(Array.from(matcher.only!.values(), (v) => stringHash(v)))),
        listKeys: () =>
          keptPerState(this.derived, `listKeys|${matcher.key}`, () => {
            const keys = matcher.listKeys!()!;
            return uint32Set([...keys.pid, ...keys.phone, ...keys.address]);
          }),
      }),
    );
  }

  /** Each position's latitude and longitude in a state, read and kept while the budget allows. */
  private coordinatesOf(range: StateRange): Float64Array {
    return keptPerState(this.derived, `coordinates|${range.state}`, () => this.dataset.coordinates(range));
  }

  zipCentre(zip: string): ZipCentre {
    return this.zipCentres.of(zip);
  }

  /** Each position's household number in a state, read and kept while the budget allows. */
  private householdsOf(range: StateRange): Uint32Array {
    return keptPerState(this.derived, `households|${range.state}`, () => householdNumbers(this.dataset, range));
  }

  private evaluate(audience: Audience, range: StateRange, checkBudget: () => void): Selection {
    if (this.paging.takesMarks) {
      const marked = this.filters.mark(audience, range, checkBudget);
      if (marked) return marked.n === 0 ? EMPTY_SELECTION : this.paging.marked(marked.marks, marked.n, range);
    }
    const n = this.filters.match(audience, range.first, range.first + range.count, false, checkBudget);
    if (n === 0) return EMPTY_SELECTION;
    // A right-sized copy or a bit a person: the cache does not hold a whole state's worth per audience.
    return this.paging.listed(this.filters.listed, n, range);
  }

  summary(): DatasetSummary {
    const states = this.dataset
      .stateCounts()
      .map((r) => ({ state: r.state, count: r.count }))
      .sort((a, b) => (a.state < b.state ? -1 : 1));
    return { source: this.dataset.path, records: this.dataset.records, states, createdAt: this.dataset.meta.created_at ?? null };
  }

  /**
   * How many people an audience has. Filters alone are counted without keeping their positions:
   * a copy of half of California's (2.4 MB at 10M records) cost 8-14 ms of allocation and garbage
   * collection, several times the scan; a page of the audience keeps them (select()).
   */
  count(audience: Audience, checkBudget: () => void = () => undefined): number {
    return this.verifyGate.hold(() => {
      assertResolved(audience);
      const controlled = hasEffect(audience.controls);
      // A whole state is its size. Selecting it would build the state's PID order, which only a page
      // needs: ~50-80 ms for California at 10M, seconds for a national file's, on its first count.
      if (audience.filters.length === 0 && !controlled) return this.dataset.stateRange(audience.state).count;
      if (controlled) return this.select(audience, checkBudget).total;
      const cached = this.cache.get(audienceKey(audience));
      if (cached) return cached.total;
      const range = this.dataset.stateRange(audience.state);
      return this.filters.match(audience, range.first, range.first + range.count, true, checkBudget);
    });
  }

  steps(audience: Audience): AudienceSteps {
    return this.verifyGate.hold(() => {
      if (!hasEffect(audience.controls)) return unchangedSteps(this.count(audience));
      const selection = this.select(audience);
      return selection instanceof StepSelection ? selection.steps : unchangedSteps(selection.total);
    });
  }

  countMatching(matcher: RecordMatcher): number {
    let people = 0;
    for (const range of this.dataset.stateCounts()) {
      const marks = this.matching(matcher, range);
      for (let k = 0; k < marks.length; k++) people += marks[k]!;
    }
    return people;
  }

  /** Match and append's candidates from the vectors (keyedCandidates.ts). */
  keyedCandidates(keys: ListKeySets, fields: readonly string[]): KeyedCandidates | null {
    return this.verifyGate.hold(() => keyedCandidates(this.dataset, keys, fields));
  }

  recordValues(refs: ArrayLike<number>, fields: readonly string[]): Array<ReadonlyArray<string | number>> {
    return this.verifyGate.hold(() => recordValues(this.dataset, refs, fields));
  }

  previewPage(audience: Audience, skip: number, limit: number): { total: number; results: PreviewRecord[] } {
    return this.verifyGate.hold(() => {
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
    });
  }

  recordPage(audience: Audience, skip: number, limit: number): { total: number; records: Buffer[] } {
    return this.verifyGate.hold(() => {
      const { total, positions } = this.page(audience, skip, limit);
      return { total, records: this.dataset.recordBytes(positions) };
    });
  }

  /** The matches' count and the positions of one page, within the query budget. */
  private page(audience: Audience, skip: number, limit: number): { total: number; positions: ArrayLike<number> } {
    const checkBudget = budgetCheck(this.options.queryBudgetMs);
    // A page of none (the API's count) needs the total only: counted, not kept (see count()).
    if (limit === 0) return { total: this.count(audience, checkBudget), positions: [] };
    const selection = this.select(audience, checkBudget);
    checkBudget();
    return { total: selection.total, positions: selection.page(skip, limit) };
  }

  records(audience: Audience): RecordStream {
    const selection = this.select(audience);
    const dataset = this.dataset;
    const range = dataset.stateRange(audience.state);
    return {
      total: selection.total,
      async *batches(batchSize: number): AsyncIterable<string[]> {
        // Storage order: in a file stored by household, PID order would read every block once a record.
        if (!dataset.inPidOrder) {
          for (const positions of ascendingBatches(selection, range.first, range.count, batchSize)) yield dataset.recordTexts(positions);
          return;
        }
        for (let skip = 0; skip < selection.total; skip += batchSize) yield dataset.recordTexts(selection.page(skip, batchSize));
      },
    };
  }

  async ready(): Promise<void> {
    // Memory the first requests would fault in, written now (writeAhead.ts).
    writeAheadForFirstRequests(this.dataset, this.paging, this.verifyGate);
    // The file's pages they would read from the disk, read on a thread of its own (fileReadAhead.ts)
    // when the OS does not hold them already.
    const always = this.options.fileReadAhead === 'always';
    this.readAhead ??= readFileAhead(this.dataset, this.verifyGate, undefined, always ? () => false : undefined);
    // This thread's loops compiled with every branch seen: a warm-up request alone can leave one
    // unseen (a marking piece's tail), and code compiled without it is thrown away on the first
    // request that takes it.
    warmUpScans();
    warmUpMarks();
    warmUpStretchCounts();
    // Only where a scan would be split: a small file's engine never starts the worker.
    if (this.twoCores && this.dataset.stateCounts().some((s) => s.count >= this.twoCores!.splitFrom)) await this.twoCores.whenRunning();
  }

  close(): void {
    this.dataset.close();
  }

  isHashed(index: number): boolean {
    return this.dataset.columnInfo(index).encoding === 'hash';
  }

  groupCounts(audience: Audience, fieldIndexes: readonly number[]): GroupCount[] {
    return this.verifyGate.hold(() => {
      // Only the audience's state is read: its positions are the selection's.
      return groupCounts(this.dataset, this.dataset.stateRange(audience.state), this.select(audience), fieldIndexes);
    });
  }

  /** Each field's counts alone, the audience listed once for them all (fieldCounts.ts). */
  groupCountsMany(audience: Audience, fieldIndexes: readonly number[]): GroupCount[][] {
    return this.verifyGate.hold(() => {
      assertResolved(audience);
      const range = this.dataset.stateRange(audience.state);
      const controlled = hasEffect(audience.controls);
      // A whole state is its range: selecting it would build the state's PID order, which only a page needs.
      if (audience.filters.length === 0 && !controlled)
        return countFields(this.dataset, { range, list: null }, fieldIndexes, this.twoCores);
      const selection = controlled ? this.select(audience) : this.cache.get(audienceKey(audience));
      // Filters not asked for before: their scan lists them ascending already, with no PID order or rank set to build.
      const listed = selection ? -1 : this.filters.match(audience, range.first, range.first + range.count, false, () => undefined);
      const list = selection ? ascendingPositions(selection, range) : sharedList(this.filters.listed, listed);
      return countFields(this.dataset, countedPositions(range, list), fieldIndexes, this.twoCores);
    });
  }

  /**
   * How many matching records have each value of a field, most frequent first, at most `max`; none for
   * a hashed field. Not the engine interface's (the service draws breakdowns itself): for benchmarks and tests.
   */
  valueCounts(audience: Audience, index: number, max: number): ValueCount[] {
    const def = FIELDS[index];
    if (!def || def.type === 'number' || this.isHashed(index)) return [];
    return mostFrequent(valueCountsOf(this.groupCounts(audience, [index])), max);
  }

  /** The cross-tab the audience service answers for one state (audience/contract/crossTab.ts), untimed: for benchmarks and tests. */
  crossTab(audience: Audience, rowField: number, columnField: number, max: number): CrossTabCounts {
    checkAxis(rowField, this.isHashed(rowField), 'rows');
    checkAxis(columnField, this.isHashed(columnField), 'columns');
    return crossTabOf(rowField, columnField, this.groupCounts(audience, [rowField, columnField]), max);
  }
}
