// The app's audiences over several states (or all of them): each operation runs the one-state
// operation of the audience service once per state and adds the answers up, so a state's part of a
// several-state audience is exactly what the HTTP API answers for that state. The API itself stays
// one state a request (the interface says so); only the app's handler table takes `states`.
// Decisions (docs/multi-state.md): states are asked in code order (the grid pages through them in
// that order); a sample of a size is shared out among the states in proportion to the people each
// holds before sampling, so the whole audience has the size asked; a sample of every n-th person is
// taken within each state.
import { performance } from 'node:perf_hooks';
import { normalizeAudience, type AudienceInput, type NormalizedAudience } from '../../shared/audienceRequest';
import type { AudienceSteps, CrossTab, ExportJob, FieldValue, PreviewRecord, StateCount, ValueCount } from '../../shared/contract';
import { AppError } from '../../shared/errors';
import { isStateCode } from '../../shared/states';
import type { AudienceService, SearchAnswer } from './audienceService';
import { orderValues } from './breakdown';
import type { StartExport } from '../export/exportJobs';

export type SeveralStatesInput = AudienceInput & { states?: string[]; limit?: number; skip?: number };

/** One state's part: its normalized audience; empty when its share of a sample is nobody (query then unsampled). */
interface Part {
  state: string;
  query: NormalizedAudience;
  empty: boolean;
}

const since = (start: number): number => Math.round((performance.now() - start) * 10) / 10;

/** The states an input asks about: `states` when given (unique, upper-cased, in code order), else `state`. */
export function askedStates(input: { state: string; states?: string[] }): string[] {
  if (!input.states?.length) return [input.state];
  const codes = [...new Set(input.states.map((s) => s.toUpperCase()))].sort();
  const unknown = codes.find((s) => !isStateCode(s));
  if (unknown !== undefined)
    throw new AppError(
      'invalid_request',
      `Unknown state ${JSON.stringify(unknown)} in "states": use two-letter USPS codes of the 50 states or DC.`,
      'states',
    );
  return codes;
}

/** Shares `size` among states in proportion to `counts` (largest remainders), none above its count. */
export function shareSample(size: number, counts: readonly number[]): number[] {
  const sum = counts.reduce((a, b) => a + b, 0);
  if (sum <= size) return [...counts];
  const exact = counts.map((c) => (c * size) / sum);
  const shares = exact.map(Math.floor);
  let left = size - shares.reduce((a, b) => a + b, 0);
  const byRemainder = exact.map((e, i) => ({ i, r: e - Math.floor(e) })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (const { i } of byRemainder) {
    if (left === 0) break;
    if (shares[i]! < counts[i]!) {
      shares[i]!++;
      left--;
    }
  }
  return shares;
}

/** Where a page of `limit` from `skip` falls over parts of the given sizes, part by part. */
export function pageSlices(sizes: readonly number[], skip: number, limit: number): Array<{ part: number; skip: number; limit: number }> {
  const slices: Array<{ part: number; skip: number; limit: number }> = [];
  let offset = 0;
  let want = limit;
  for (let part = 0; part < sizes.length && want > 0; part++) {
    const size = sizes[part]!;
    const localSkip = Math.max(0, skip - offset);
    if (localSkip < size) {
      const take = Math.min(want, size - localSkip);
      slices.push({ part, skip: localSkip, limit: take });
      want -= take;
    }
    offset += size;
  }
  return slices;
}

function addSteps(all: AudienceSteps[]): AudienceSteps {
  const sum = (key: keyof AudienceSteps) => all.reduce((a, s) => a + s[key], 0);
  return { matched: sum('matched'), afterExclusions: sum('afterExclusions'), afterHouseholds: sum('afterHouseholds'), total: sum('total') };
}

/** Value counts added up by value, in the order a one-state breakdown of the field uses. */
export function mergeValueCounts(field: string, lists: readonly ValueCount[][], max: number): ValueCount[] {
  const counts = new Map<FieldValue, number>();
  for (const list of lists) for (const { value, count } of list) counts.set(value, (counts.get(value) ?? 0) + count);
  const top = [...counts]
    .map(([value, count]) => ({ value, count }))
    .sort((a, b) => b.count - a.count)
    .slice(0, max);
  return orderValues(field, top);
}

export class SeveralStates {
  constructor(private readonly service: AudienceService) {}

  async count(input: SeveralStatesInput): Promise<{ total: number; ms: number; steps: AudienceSteps; byState: StateCount[] }> {
    const start = performance.now();
    const parts = await this.parts(input);
    const steps: AudienceSteps[] = [];
    for (const p of parts) {
      const { steps: s } = await this.service.count(p.query);
      // A state whose share of the sample is nobody still matched its people before the sample.
      steps.push(p.empty ? { ...s, total: 0 } : s);
    }
    const total = addSteps(steps);
    return {
      total: total.total,
      ms: since(start),
      steps: total,
      byState: parts.map((p, i) => ({ state: p.state, count: steps[i]!.total })),
    };
  }

  async preview(input: SeveralStatesInput): Promise<{ total: number; results: PreviewRecord[]; ms: number }> {
    const start = performance.now();
    const parts = await this.parts(input);
    if (parts.length === 1) return this.service.preview(parts[0]!.query);
    const { skip, limit } = parts[0]!.query;
    const sizes = await this.sizes(parts);
    const results: PreviewRecord[] = [];
    for (const slice of pageSlices(sizes, skip, limit)) {
      const page = await this.service.preview({ ...parts[slice.part]!.query, skip: slice.skip, limit: slice.limit });
      results.push(...page.results);
    }
    return { total: sum(sizes), results, ms: since(start) };
  }

  async search(input: SeveralStatesInput): Promise<SearchAnswer> {
    const start = performance.now();
    const parts = await this.parts(input);
    if (parts.length === 1) return this.service.search(parts[0]!.query);
    const { skip, limit } = parts[0]!.query;
    const sizes = await this.sizes(parts);
    const records: Buffer[] = [];
    for (const slice of pageSlices(sizes, skip, limit)) {
      const page = await this.service.search({ ...parts[slice.part]!.query, skip: slice.skip, limit: slice.limit });
      records.push(...page.records);
    }
    return { total: sum(sizes), limit, skip, records, ms: since(start) };
  }

  async breakdown(
    input: SeveralStatesInput,
    field: string,
    max?: number,
  ): Promise<{ field: string; total: number; values: ValueCount[]; ms: number }> {
    const start = performance.now();
    const parts = (await this.parts(input)).filter((p) => !p.empty);
    if (parts.length === 1) return this.service.breakdown(parts[0]!.query, field, max);
    const answers = [];
    // Each state is asked for every value it has (up to the operation's limit), so a value that is
    // not among one state's most frequent still counts in full.
    for (const p of parts) answers.push(await this.service.breakdown(p.query, field, BREAKDOWN_PER_STATE));
    const name = field.toUpperCase();
    return {
      field: name,
      total: sum(answers.map((a) => a.total)),
      values: mergeValueCounts(
        name,
        answers.map((a) => a.values),
        max ?? BREAKDOWN_DEFAULT,
      ),
      ms: since(start),
    };
  }

  async crossTab(input: SeveralStatesInput, rows: string, columns: string, max?: number): Promise<CrossTab> {
    const start = performance.now();
    const parts = (await this.parts(input)).filter((p) => !p.empty);
    if (parts.length === 1) return this.service.crossTab(parts[0]!.query, rows, columns, max);
    const tables: CrossTab[] = [];
    for (const p of parts) tables.push(await this.service.crossTab(p.query, rows, columns, CROSS_TAB_PER_STATE));
    return { ...mergeCrossTabs(tables, max ?? CROSS_TAB_DEFAULT), ms: since(start) };
  }

  /** One export job writing every state's records into one file, state after state. */
  async startExport(input: SeveralStatesInput, request: Omit<StartExport, 'audience'>): Promise<ExportJob> {
    const parts = (await this.parts(input)).filter((p) => !p.empty);
    // Every share of a sample is nobody only when no state has anyone: the first state's export writes none.
    const writing = parts.length ? parts : (await this.parts(input)).slice(0, 1);
    return this.service.startExport(
      writing.map((p) => p.query),
      request,
    );
  }

  /** Each asked state's normalized audience, with a sample of a size shared out among them. */
  async parts(input: SeveralStatesInput): Promise<Part[]> {
    const states = askedStates(input);
    const { states: _states, ...rest } = input;
    const queries = states.map((state) => normalizeAudience({ ...rest, state }));
    const sample = queries[0]!.listControls.sample;
    if (states.length === 1 || !sample || !('size' in sample))
      return queries.map((query, i) => ({ state: states[i]!, query, empty: false }));
    const unsampled = queries.map((q) => ({ ...q, listControls: { ...q.listControls, sample: null } }));
    const before: number[] = [];
    for (const q of unsampled) before.push((await this.service.count(q)).total);
    const shares = shareSample(sample.size, before);
    return queries.map((q, i) => {
      const share = shares[i]!;
      if (share === 0) return { state: states[i]!, query: unsampled[i]!, empty: true };
      return {
        state: states[i]!,
        query: { ...q, listControls: { ...q.listControls, sample: { size: share, seed: sample.seed } } },
        empty: false,
      };
    });
  }

  private async sizes(parts: Part[]): Promise<number[]> {
    const sizes: number[] = [];
    for (const p of parts) sizes.push(p.empty ? 0 : (await this.service.count(p.query)).total);
    return sizes;
  }
}

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

const BREAKDOWN_PER_STATE = 1000;
const BREAKDOWN_DEFAULT = 50;
const CROSS_TAB_PER_STATE = 200;
const CROSS_TAB_DEFAULT = 30;

/** Cross-tabs of several states added up cell by cell; the most frequent rows and columns kept. */
export function mergeCrossTabs(tables: readonly CrossTab[], max: number): Omit<CrossTab, 'ms'> {
  const cells = new Map<FieldValue, Map<FieldValue, number>>();
  const rowTotals = new Map<FieldValue, number>();
  const columnTotals = new Map<FieldValue, number>();
  for (const t of tables) {
    t.rowValues.forEach((r, i) => {
      const row = cells.get(r) ?? new Map<FieldValue, number>();
      cells.set(r, row);
      t.columnValues.forEach((c, j) => {
        const n = t.counts[i]![j]!;
        row.set(c, (row.get(c) ?? 0) + n);
        rowTotals.set(r, (rowTotals.get(r) ?? 0) + n);
        columnTotals.set(c, (columnTotals.get(c) ?? 0) + n);
      });
    });
  }
  const top = (totals: Map<FieldValue, number>) =>
    [...totals]
      .sort((a, b) => b[1] - a[1])
      .slice(0, max)
      .map(([v]) => v);
  const rowValues = top(rowTotals);
  const columnValues = top(columnTotals);
  return {
    rows: tables[0]!.rows,
    columns: tables[0]!.columns,
    rowValues,
    columnValues,
    counts: rowValues.map((r) => columnValues.map((c) => cells.get(r)?.get(c) ?? 0)),
    total: sum(tables.map((t) => t.total)),
  };
}
