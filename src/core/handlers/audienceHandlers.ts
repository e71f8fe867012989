// The read operations: what the dataset holds, and counts, previews, pages of records and value
// breakdowns of an audience. Audience inputs go through normalizeAudienceRequest, the same rules
// as the HTTP API, so the app and the API can never disagree on what a filter means.
import { performance } from 'node:perf_hooks';
import { normalizeAudienceRequest } from '../../shared/audienceRequest';
import type { Core } from '../createCore';
import { recordToObject, type RecordValues } from '../dataset/recordFormat';
import { breakdown, breakdownField } from './breakdown';
import type { HandlerRegistry } from './registry';

/** Milliseconds since `start`, to a tenth: what the builder shows beside a count. */
const since = (start: number): number => Math.round((performance.now() - start) * 10) / 10;

export function registerAudienceHandlers(registry: HandlerRegistry, core: Core): void {
  registry.register('dataset/info', () => {
    const dataset = core.engine.dataset;
    const states = dataset
      .stateCounts()
      .map((r) => ({ state: r.state, count: r.count }))
      .sort((a, b) => (a.state < b.state ? -1 : 1));
    return { path: dataset.path, records: dataset.records, states, createdAt: dataset.meta.created_at ?? null };
  });

  registry.register('audience/count', ({ state, filters }) => {
    const start = performance.now();
    const total = core.engine.count(normalizeAudienceRequest({ state, filters }));
    return { total, ms: since(start) };
  });

  registry.register('audience/preview', (input) => {
    const start = performance.now();
    const result = core.engine.preview(normalizeAudienceRequest(input));
    return { ...result, ms: since(start) };
  });

  registry.register('audience/search', (input) => {
    const page = core.engine.search(normalizeAudienceRequest(input));
    return {
      total: page.total,
      limit: page.limit,
      skip: page.skip,
      results: page.texts.map((text) => recordToObject(JSON.parse(text) as RecordValues)),
    };
  });

  registry.register('audience/breakdown', ({ state, filters, field, max }) => {
    const start = performance.now();
    const audience = normalizeAudienceRequest({ state, filters });
    const index = breakdownField(field);
    const engine = core.engine;
    const values = breakdown(engine, audience, index, max);
    return { field: field.toUpperCase(), total: engine.count(audience), values, ms: since(start) };
  });
}
