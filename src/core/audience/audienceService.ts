// The one way into the engine: every transport (HTTP API, the app's handler table over IPC and
// browser mode, the CLI) asks this service, so a count means the same everywhere. Inputs arrive
// validated and normalized at the edge (src/shared/audienceRequest.ts); the service runs the
// operation on the current engine, times it and renders its answer.
import { performance } from 'node:perf_hooks';
import type { NormalizedAudience } from '../../shared/audienceRequest';
import type { AudienceSteps, CrossTab, ExportJob, PreviewRecord, ValueCount } from '../../shared/contract';
import { FIELD_NAMES } from '../../shared/fields';
import { recordToObject, storedRecordsToJsonBytes, type RecordValues } from '../dataset/recordFormat';
import { exportAudience, type ExportOptions, type ExportResult } from '../export/exportAudience';
import type { ExportJobs, StartExport } from '../export/exportJobs';
import { BREAKDOWN_MAX_DEFAULT, breakdownField, breakdownValues } from './breakdown';
import type { Audience, AudienceEngine, DatasetSummary } from './engine';
import { resolveAudience, type AudienceQuery, type ExclusionSources } from './resolveControls';

export interface SearchAnswer {
  total: number;
  limit: number;
  skip: number;
  /** Each record as the UTF-8 JSON array of its values in catalog order. */
  records: Buffer[];
  ms: number;
}

/** Milliseconds since `start`, to a tenth: what the builder shows beside a count. */
const since = (start: number): number => Math.round((performance.now() - start) * 10) / 10;

export class AudienceService {
  constructor(
    private readonly engine: () => AudienceEngine,
    private readonly exportJobs: ExportJobs,
    /** Where exclude entries are found (app state); ZIP centres come from the engine. */
    private readonly sources: Omit<ExclusionSources, 'zipCentre'>,
  ) {}

  summary(): Promise<DatasetSummary> | DatasetSummary {
    return this.engine().summary();
  }

  async count(query: AudienceQuery): Promise<{ total: number; ms: number; steps: AudienceSteps }> {
    const start = performance.now();
    const steps = await this.engine().steps(await this.resolve(query));
    return { total: steps.total, ms: since(start), steps };
  }

  async preview(request: NormalizedAudience): Promise<{ total: number; results: PreviewRecord[]; ms: number }> {
    const start = performance.now();
    const page = await this.engine().previewPage(await this.resolve(request), request.skip, request.limit);
    return { ...page, ms: since(start) };
  }

  async search(request: NormalizedAudience): Promise<SearchAnswer> {
    const start = performance.now();
    const page = await this.engine().recordPage(await this.resolve(request), request.skip, request.limit);
    return { total: page.total, limit: request.limit, skip: request.skip, records: page.records, ms: since(start) };
  }

  async breakdown(
    query: AudienceQuery,
    field: string,
    max = BREAKDOWN_MAX_DEFAULT,
  ): Promise<{ field: string; total: number; values: ValueCount[]; ms: number }> {
    const start = performance.now();
    const index = breakdownField(field);
    const engine = this.engine();
    const audience = await this.resolve(query);
    const values = await breakdownValues(engine, audience, index, max);
    const total = await engine.count(audience);
    return { field: field.toUpperCase(), total, values, ms: since(start) };
  }

  async crossTab(query: AudienceQuery, rows: string, columns: string, max = CROSS_TAB_MAX_DEFAULT): Promise<CrossTab> {
    const start = performance.now();
    const rowIndex = breakdownField(rows, 'rows');
    const columnIndex = breakdownField(columns, 'columns');
    const table = await this.engine().crossTab(await this.resolve(query), rowIndex, columnIndex, max);
    return { rows: fieldName(rowIndex), columns: fieldName(columnIndex), ...table, ms: since(start) };
  }

  /** An export in the background (the app): progress by status, cancellable, audited. Several queries (states) write one file. */
  async startExport(query: AudienceQuery | AudienceQuery[], request: Omit<StartExport, 'audience'>): Promise<ExportJob> {
    if (!Array.isArray(query)) return this.exportJobs.start({ ...request, audience: await this.resolve(query) });
    const audiences: Audience[] = [];
    for (const q of query) audiences.push(await this.resolve(q));
    return this.exportJobs.start({ ...request, audience: audiences });
  }

  /** An export that the caller waits for (the CLI). */
  async exportToFile(query: AudienceQuery, options: ExportOptions): Promise<ExportResult> {
    return exportAudience(this.engine(), await this.resolve(query), options);
  }

  private resolve(query: AudienceQuery): Promise<Audience> {
    return resolveAudience(query, { ...this.sources, zipCentre: (zip) => this.engine().zipCentre(zip) });
  }
}

export const CROSS_TAB_MAX_DEFAULT = 30;

const fieldName = (index: number): string => FIELD_NAMES[index]!;

/** The search operation's body as the API sends it, built from the stored bytes without decoding them. */
export function searchAnswerJson(answer: SearchAnswer): Buffer {
  return storedRecordsToJsonBytes(
    `{"total":${answer.total},"limit":${answer.limit},"skip":${answer.skip},"results":[`,
    answer.records,
    ']}',
  );
}

/** The search answer's records as objects (field name to value), for the app. */
export function searchAnswerObjects(answer: SearchAnswer): Array<Record<string, string | number>> {
  return answer.records.map((bytes) => recordToObject(JSON.parse(bytes.toString('utf8')) as RecordValues));
}
