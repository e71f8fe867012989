// The one way into the engine: every transport (HTTP API, the app's handler table over IPC and
// browser mode, the CLI) asks this service, so a count means the same everywhere. Inputs arrive
// validated and normalized at each transport's edge (src/shared/audienceRequest.ts; the app's
// `states` in src/core/handlers/statesInput.ts); the service resolves the list controls, runs the
// operation on the current engine and times it. Rendering an answer is the transport's.
//
// An audience is over one state or several (`states`, docs/multi-state.md); one state is the case of
// one. The engine is asked a state at a time, in code order, and the answers add up (severalStates.ts
// holds the rules), so a state's part of a several-state answer is what that state alone answers.
// Breakdowns and cross-tabs add up the engine's group counts before the values are chosen
// (breakdown.ts, crossTab.ts), so several states are ranked exactly as one would be.
import { performance } from 'node:perf_hooks';
import type { NormalizedAudience } from '../../shared/audienceRequest';
import type { AudienceSteps, CrossTab, ExportJob, PreviewRecord, StateCount, ValueCount } from '../../shared/contract';
import { FIELD_NAMES } from '../../shared/fields';
import { exportAudience, type ExportOptions, type ExportResult } from '../export/exportAudience';
import type { ExportJobs, StartExport } from '../export/exportJobs';
import { breakdownField, breakdownOf } from './contract/breakdown';
import { checkAxis, crossTabOf } from './contract/crossTab';
import type { Audience, AudienceEngine, DatasetSummary, Exclusion, GroupCount } from './contract/engine';
import { BREAKDOWN_MAX_DEFAULT, CROSS_TAB_MAX_DEFAULT } from './contract/queryDefaults';
import { checkNearZip } from './nearZip';
import { resolveAudience, type AudienceQuery, type ExclusionSources } from './resolveControls';
import { profileOf } from './profile';
import { overlapOf } from './overlap';
import type { OverlapAnswer, OverlapRequest } from '../../shared/overlap';
import { NO_LIST_CONTROLS, normalizeListControls } from '../../shared/listControls';
import type { LikeQuality } from '../../shared/likeQuality';
import { likeQualityOf } from './likeQuality';
import { AppError, isAppError } from '../../shared/errors';
import { addSteps, pageSlices, shareSample } from './severalStates';
import type { ProfileAnswer } from '../../shared/profile';

/**
 * Who an operation is about: an audience of one state, or of several (`states`, when given, wins
 * over `state`: unique codes in code order, checked at the transport's edge) with the same filters
 * and list controls.
 */
export type StatesQuery = AudienceQuery & { states?: readonly string[] };
/** A StatesQuery with a page (`skip`, `limit` across the states). */
export type StatesRequest = StatesQuery & Pick<NormalizedAudience, 'skip' | 'limit'>;

export interface SearchAnswer {
  total: number;
  limit: number;
  skip: number;
  /** Each record as the UTF-8 JSON array of its values in catalog order. */
  records: Buffer[];
  ms: number;
}

/** One state's part of an audience; `empty` when its share of a sample is nobody (its audience then unsampled). */
interface Part {
  state: string;
  audience: Audience;
  empty: boolean;
}

/** Milliseconds since `start`, to a tenth: what the builder shows beside a count. */
const since = (start: number): number => Math.round((performance.now() - start) * 10) / 10;
const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);
const fieldName = (index: number): string => FIELD_NAMES[index]!;

export class AudienceService {
  constructor(
    private readonly engine: () => AudienceEngine,
    private readonly exportJobs: ExportJobs,
    /** Where exclude entries are found (app state); ZIP centres come from the engine. */
    private readonly sources: Omit<ExclusionSources, 'zipCentre' | 'engine'>,
  ) {}

  summary(): Promise<DatasetSummary> | DatasetSummary {
    return this.engine().summary();
  }

  /** The count after each step, added up over the states, and each state's count (in code order). */
  async count(query: StatesQuery): Promise<{ total: number; ms: number; steps: AudienceSteps; byState: StateCount[] }> {
    const start = performance.now();
    const engine = this.engine();
    const parts = await this.parts(engine, query);
    const steps: AudienceSteps[] = [];
    for (const p of parts) {
      const s = await engine.steps(p.audience);
      // A state whose share of the sample is nobody still matched its people before the sample.
      steps.push(p.empty ? { ...s, total: 0 } : s);
    }
    const all = addSteps(steps);
    return { total: all.total, ms: since(start), steps: all, byState: parts.map((p, i) => ({ state: p.state, count: steps[i]!.total })) };
  }

  async preview(request: StatesRequest): Promise<{ total: number; results: PreviewRecord[]; ms: number }> {
    const start = performance.now();
    const engine = this.engine();
    const { total, items } = await this.page(engine, request, async (audience, skip, limit) => {
      const page = await engine.previewPage(audience, skip, limit);
      return { total: page.total, items: page.results };
    });
    return { total, results: items, ms: since(start) };
  }

  async search(request: StatesRequest): Promise<SearchAnswer> {
    const start = performance.now();
    const engine = this.engine();
    const { total, items } = await this.page(engine, request, async (audience, skip, limit) => {
      const page = await engine.recordPage(audience, skip, limit);
      return { total: page.total, items: page.records };
    });
    return { total, limit: request.limit, skip: request.skip, records: items, ms: since(start) };
  }

  async breakdown(
    query: StatesQuery,
    field: string,
    max = BREAKDOWN_MAX_DEFAULT,
  ): Promise<{ field: string; total: number; values: ValueCount[]; ms: number }> {
    const start = performance.now();
    const index = breakdownField(field);
    const engine = this.engine();
    const parts = await this.withPeople(engine, query);
    // A field with a different value for nearly everyone has no breakdown worth drawing.
    const hashed = await engine.isHashed(index);
    const groups: GroupCount[][] = [];
    let total = 0;
    for (const p of parts) {
      if (!hashed) groups.push(await engine.groupCounts(p.audience, [index]));
      total += await engine.count(p.audience);
    }
    return { field: field.toUpperCase(), total, values: hashed ? [] : breakdownOf(index, groups.flat(), max), ms: since(start) };
  }

  async crossTab(query: StatesQuery, rows: string, columns: string, max = CROSS_TAB_MAX_DEFAULT): Promise<CrossTab> {
    const start = performance.now();
    const rowIndex = breakdownField(rows, 'rows');
    const columnIndex = breakdownField(columns, 'columns');
    const engine = this.engine();
    checkAxis(rowIndex, await engine.isHashed(rowIndex), 'rows');
    checkAxis(columnIndex, await engine.isHashed(columnIndex), 'columns');
    const groups: GroupCount[][] = [];
    for (const p of await this.withPeople(engine, query)) groups.push(await engine.groupCounts(p.audience, [rowIndex, columnIndex]));
    const table = crossTabOf(rowIndex, columnIndex, groups.flat(), max);
    return { rows: fieldName(rowIndex), columns: fieldName(columnIndex), ...table, ms: since(start) };
  }

  /** The profile of an audience against everyone in its states (profile.ts; docs/insight.md). */
  async profile(query: StatesQuery, fields: readonly string[]): Promise<ProfileAnswer & { ms: number }> {
    const start = performance.now();
    const engine = this.engine();
    const parts = await this.parts(engine, query);
    // The base: everyone of each state as the resolver gives it (whom every audience leaves out, left out).
    const bases: Audience[] = [];
    for (const p of parts) bases.push(await this.resolve(engine, { state: p.state, filters: [], listControls: NO_LIST_CONTROLS }));
    // A state whose share of a sample is nobody adds no people, only its base.
    const answer = await profileOf(
      engine,
      parts.map((p) => p.audience),
      fields,
      parts.map((p) => p.empty),
      bases,
    );
    return { ...answer, ms: since(start) };
  }

  /** How many people of a state each combination of 2 to 5 saved audiences, lists or exports share (overlap.ts). */
  async overlap(request: OverlapRequest): Promise<OverlapAnswer & { ms: number }> {
    const start = performance.now();
    const engine = this.engine();
    const sets: Exclusion[] = [];
    // What the resolver leaves out of every audience unasked (consumer opt-outs), left out of every region too.
    let always: Exclusion[] = [];
    for (const ref of request.sets) {
      const listControls = { ...NO_LIST_CONTROLS, include: [ref] };
      try {
        const resolved = (await this.resolve(engine, { state: request.state, filters: [], listControls })).controls!;
        sets.push(resolved.inclusions[0]!);
        always = resolved.exclusions;
      } catch (e) {
        // The set is named in "sets", not in an `include` of the caller's.
        if (isAppError(e) && e.field === 'include') throw new AppError(e.code, e.message.replace('"include"', '"sets"'), 'sets');
        throw e;
      }
    }
    const answer = await overlapOf(
      engine,
      request.state,
      sets,
      request.sets.map((r) => `${r.kind}:${r.id}`),
      always,
    );
    return { ...answer, ms: since(start) };
  }

  /** How well a lookalike of a seed would find the seed's people (likeQuality.ts): lift by decile on a held-out part. */
  async likeQuality(state: string, seedRef: string): Promise<LikeQuality> {
    const start = performance.now();
    const engine = this.engine();
    let resolved: Audience;
    try {
      const listControls = normalizeListControls({ like: { seed: seedRef, top: 1 } });
      // Resolving the `like` finds the seed and refuses one of under 30 people in the state.
      resolved = await this.resolve(engine, { state, filters: [], listControls });
    } catch (e) {
      // The seed is named in "seed" here, not in a `like` of the caller's.
      if (isAppError(e) && e.field === 'like') throw new AppError(e.code, e.message.replace('"like"', '"seed"'), 'seed');
      throw e;
    }
    // The resolver's own exclusions (consumer opt-outs) stay out of the ranking and its counts too.
    const answer = await likeQualityOf(engine, state, resolved.controls!.like!.seed, resolved.controls!.exclusions);
    return { ...answer, ms: since(start) };
  }

  /**
   * An export in the background (the app, the CLI): progress by status, cancellable, audited. Several
   * states write one file, state after state in code order.
   */
  async startExport(query: StatesQuery, request: Omit<StartExport, 'audience'>): Promise<ExportJob> {
    const engine = this.engine();
    const parts = await this.parts(engine, query);
    const writing = parts.filter((p) => !p.empty);
    // Every share of a sample is nobody only when no state has anyone: the first state's export writes none.
    const audiences = (writing.length > 0 ? writing : parts.slice(0, 1)).map((p) => p.audience);
    return this.exportJobs.start({ ...request, audience: audiences.length === 1 ? audiences[0]! : audiences });
  }

  /** An export of one state that the caller waits for. */
  async exportToFile(query: AudienceQuery, options: ExportOptions): Promise<ExportResult> {
    const engine = this.engine();
    await checkNearZip(engine, [query.state], query.listControls.near);
    return exportAudience(engine, await this.resolve(engine, query), options);
  }

  /** A page across the parts: the states in code order, each in PID order; one state is asked its page directly. */
  private async page<T>(
    engine: AudienceEngine,
    request: StatesRequest,
    read: (audience: Audience, skip: number, limit: number) => Promise<{ total: number; items: T[] }>,
  ): Promise<{ total: number; items: T[] }> {
    const parts = await this.parts(engine, request);
    if (parts.length === 1) return read(parts[0]!.audience, request.skip, request.limit);
    const sizes: number[] = [];
    for (const p of parts) sizes.push(p.empty ? 0 : await engine.count(p.audience));
    const items: T[] = [];
    for (const slice of pageSlices(sizes, request.skip, request.limit))
      items.push(...(await read(parts[slice.part]!.audience, slice.skip, slice.limit)).items);
    return { total: sum(sizes), items };
  }

  /** The parts that hold anyone of a sample's shares (every part without a sample of a size). */
  private async withPeople(engine: AudienceEngine, query: StatesQuery): Promise<Part[]> {
    return (await this.parts(engine, query)).filter((p) => !p.empty);
  }

  /** Each asked state's audience, its list controls resolved, with a sample of a size shared out among the states. */
  private async parts(engine: AudienceEngine, query: StatesQuery): Promise<Part[]> {
    const states = query.states ?? [query.state];
    await checkNearZip(engine, states, query.listControls.near);
    const sample = query.listControls.sample;
    const inState = (state: string, listControls = query.listControls) =>
      this.resolve(engine, { state, filters: query.filters, listControls });
    const parts: Part[] = [];
    if (states.length === 1 || !sample || !('size' in sample)) {
      for (const state of states) parts.push({ state, audience: await inState(state), empty: false });
      return parts;
    }
    const unsampled: Audience[] = [];
    const before: number[] = [];
    for (const state of states) {
      const audience = await inState(state, { ...query.listControls, sample: null });
      unsampled.push(audience);
      before.push(await engine.count(audience));
    }
    const shares = shareSample(sample.size, before);
    for (const [i, state] of states.entries()) {
      const size = shares[i]!;
      if (size === 0) parts.push({ state, audience: unsampled[i]!, empty: true });
      else
        parts.push({ state, audience: await inState(state, { ...query.listControls, sample: { size, seed: sample.seed } }), empty: false });
    }
    return parts;
  }

  private resolve(engine: AudienceEngine, query: AudienceQuery): Promise<Audience> {
    return resolveAudience(query, { ...this.sources, zipCentre: (zip) => engine.zipCentre(zip), engine });
  }
}
