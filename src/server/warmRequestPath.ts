// A fresh process's very first request paid for being first: V8 compiling the request path (the
// body's schema, the scan, the walk of a state's PID order, the record blocks read on two cores,
// the answer's JSON), the scan worker compiling its side, statements prepared. At 10M that was
// 30-40 ms of California's first page on top of the work itself (docs/performance.md, "What a user
// meets first"). So before it listens, `serve` (and the desktop app) asks one small audience of its
// own, women in the state with the fewest people, through the calls a request makes: not through
// HTTP, so no key is used and nothing is logged or written; the answer is dropped. An engine other
// than a dataset file (ClickHouse) is left alone: its first query is the server's to answer.
import type { Core } from '../core/createCore';
import { normalizeAudienceRequest } from '../shared/audienceRequest';
import { searchAnswerJson } from './searchAnswer';

/** Runs a small search and count through the request path once; never throws (a real request reports any trouble). */
export async function warmRequestPath(core: Core): Promise<void> {
  if (!core.hasDataset || core.usesEngine) return;
  try {
    const { states } = await core.engine.summary();
    const smallest = states.filter((s) => s.count > 0).sort((a, b) => a.count - b.count)[0];
    if (!smallest) return;
    const body = { state: smallest.state, limit: 25, filters: [['GENDER', ['F']]] };
    searchAnswerJson(await core.audiences.search(normalizeAudienceRequest(body)));
    await core.audiences.preview(normalizeAudienceRequest({ ...body, limit: 0 }));
  } catch {
    // Nothing to warm (a file that cannot answer): the first request meets the same and says so.
  }
}
