// The app's read operations: what the dataset holds, and counts, previews, pages of records and
// value breakdowns of an audience, all answered by the audience service (core.audiences), the same
// one the HTTP API and the CLI call. The app may ask about several states at once (`states`): the
// service's one-state answers are added up by audience/severalStates.ts.
import { searchAnswerObjects } from '../audience/audienceService';
import { SeveralStates } from '../audience/severalStates';
import type { Core } from '../createCore';
import type { HandlerRegistry } from './registry';

export function registerAudienceHandlers(registry: HandlerRegistry, core: Core): void {
  const audiences = core.audiences;
  const several = new SeveralStates(audiences);
  registry.register('dataset/info', async () => {
    const { source, records, states, createdAt } = await audiences.summary();
    return { path: source, records, states, createdAt };
  });
  registry.register('audience/count', (input) => several.count(input));
  registry.register('audience/preview', (input) => several.preview(input));
  registry.register('audience/search', async (input) => {
    const answer = await several.search(input);
    return { total: answer.total, limit: answer.limit, skip: answer.skip, results: searchAnswerObjects(answer) };
  });
  registry.register('audience/breakdown', ({ field, max, ...audience }) => several.breakdown(audience, field, max));
  registry.register('audience/crosstab', ({ rows, columns, max, ...audience }) => several.crossTab(audience, rows, columns, max));
}
