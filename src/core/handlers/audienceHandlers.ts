// The app's read operations: what the dataset holds, and counts, previews, pages of records and
// value breakdowns of an audience, all answered by the audience service (core.audiences), the same
// one the HTTP API and the CLI call.
import { normalizeAudience } from '../../shared/audienceRequest';
import { searchAnswerObjects } from '../audience/audienceService';
import type { Core } from '../createCore';
import type { HandlerRegistry } from './registry';

export function registerAudienceHandlers(registry: HandlerRegistry, core: Core): void {
  const audiences = core.audiences;
  registry.register('dataset/info', async () => {
    const { source, records, states, createdAt } = await audiences.summary();
    return { path: source, records, states, createdAt };
  });
  registry.register('audience/count', (input) => audiences.count(normalizeAudience(input)));
  registry.register('audience/preview', (input) => audiences.preview(normalizeAudience(input)));
  registry.register('audience/search', async (input) => {
    const answer = await audiences.search(normalizeAudience(input));
    return { total: answer.total, limit: answer.limit, skip: answer.skip, results: searchAnswerObjects(answer) };
  });
  registry.register('audience/breakdown', ({ field, max, ...audience }) => audiences.breakdown(normalizeAudience(audience), field, max));
  registry.register('audience/crosstab', ({ rows, columns, max, ...audience }) =>
    audiences.crossTab(normalizeAudience(audience), rows, columns, max),
  );
}
