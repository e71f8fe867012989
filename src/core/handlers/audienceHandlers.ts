// The app's read operations: what the dataset holds, and counts, previews, pages of records and
// value breakdowns of an audience, all answered by the audience service (core.audiences), the same
// one the HTTP API and the CLI call. The app may ask about several states at once (`states`): the
// input is normalized here (statesInput.ts) and the service adds the states' answers up.
import type { SearchAnswer } from '../audience/audienceService';
import type { Core } from '../createCore';
import { recordToObject, type RecordValues } from '../dataset/codec/recordFormat';
import type { HandlerRegistry } from './registry';
import { statesRequest } from './statesInput';

/** The search answer's records as objects (field name to value), for the app. */
export function searchAnswerObjects(answer: SearchAnswer): Array<Record<string, string | number>> {
  return answer.records.map((bytes) => recordToObject(JSON.parse(bytes.toString('utf8')) as RecordValues));
}

export function registerAudienceHandlers(registry: HandlerRegistry, core: Core): void {
  const audiences = core.audiences;
  registry.register('dataset/info', async () => {
    const { source, records, states, createdAt } = await audiences.summary();
    return { path: source, records, states, createdAt };
  });
  registry.register('audience/count', (input) => audiences.count(statesRequest(input)));
  registry.register('audience/preview', (input) => audiences.preview(statesRequest(input)));
  registry.register('audience/search', async (input) => {
    const answer = await audiences.search(statesRequest(input));
    return { total: answer.total, limit: answer.limit, skip: answer.skip, results: searchAnswerObjects(answer) };
  });
  registry.register('audience/breakdown', ({ field, max, ...audience }) => audiences.breakdown(statesRequest(audience), field, max));
  registry.register('audience/crosstab', ({ rows, columns, max, ...audience }) =>
    audiences.crossTab(statesRequest(audience), rows, columns, max),
  );
}
