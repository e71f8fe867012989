// A fresh process's very first request paid for being first: V8 compiling the request path (the
// body's schema, the scan, the walk of a state's PID order, the record blocks read on two cores,
// the answer's JSON), the scan worker compiling its side, statements prepared. At 10M that was
// 30-40 ms of California's first page on top of the work itself (docs/performance.md, "What a user
// meets first"). So before it listens, `serve` (and the desktop app) asks one audience of its own,
// women in a state just large enough that its scan, its vector chunks and its record blocks are
// read on two cores as a large state's are (the smallest state had taken the one-core paths, and
// California's first page still compiled the others), through the calls a request makes: not through
// HTTP, so no key is used and nothing is logged or written; the answer is dropped. An engine other
// than a dataset file (ClickHouse) is left alone: its first query is the server's to answer.
import type { Core } from '../core/createCore';
import { normalizeAudienceRequest } from '../shared/audienceRequest';
import { searchAnswerJson } from './searchAnswer';
import { warmUpUnpacking } from '../core/dataset/codec/packedChunks';

/**
 * People a state needs for the two-core paths: scans split from 200,000 (the scanSplitFrom setting),
 * vector chunks are shared from 4 (of 65,536 positions), record blocks from 8 scattered ones.
 */
export const WARM_STATE_FROM = 300_000;

/** The smallest state of at least WARM_STATE_FROM people; in a smaller file, its largest state. */
export function warmState(states: ReadonlyArray<{ state: string; count: number }>): string | undefined {
  const bySize = states.filter((s) => s.count > 0).sort((a, b) => a.count - b.count);
  return (bySize.find((s) => s.count >= WARM_STATE_FROM) ?? bySize.at(-1))?.state;
}

/** A search the start-up asks: the state, the page and the filter (women). */
export interface WarmBody {
  state: string;
  limit: number;
  skip: number;
  filters: [string, string[]][];
}

/**
 * The searches the start-up asks (the first's count is the same with `limit: 0`): women in
 * warmState's state, their first page of 25 and a page of 100 a quarter of the way into the state
 * (about half-way through the women). The page at depth walks the state's PID order to it (the
 * stretches of ranks before it counted match by match): the first page's walk is a few hundred ranks,
 * too few for V8 to compile it, and a fresh serve's first page at depth in each state ran that walk,
 * uncompiled, over hundreds of thousands of ranks (30-60 ms at 10M; docs/performance.md). Undefined
 * when there is no dataset file to ask (none open, or another engine such as ClickHouse).
 */
export async function warmRequestBodies(core: Core): Promise<{ first: WarmBody; deep: WarmBody } | undefined> {
  if (!core.hasDataset || core.usesEngine) return undefined;
  const states = (await core.engine.summary()).states;
  const state = warmState(states);
  if (!state) return undefined;
  const people = states.find((s) => s.state === state)!.count;
  const filters: [string, string[]][] = [['GENDER', ['F']]];
  return { first: { state, limit: 25, skip: 0, filters }, deep: { state, limit: 100, skip: Math.floor(people / 4), filters } };
}

/** Runs a search and a count through the request path once; never throws (a real request reports any trouble). */
export async function warmRequestPath(core: Core): Promise<void> {
  if (!core.hasDataset || core.usesEngine) return;
  try {
    // The scan worker up first (~0.1-0.5 s after open): a warm-up without it compiles the one-core paths only.
    await core.engine.ready?.();
    // The start-up's audience unpacks one width of chunks (GENDER's); a first use of another field, the others.
    warmUpUnpacking();
    const bodies = await warmRequestBodies(core);
    if (!bodies) return;
    searchAnswerJson(await core.audiences.search(normalizeAudienceRequest(bodies.first)));
    await core.audiences.preview(normalizeAudienceRequest({ ...bodies.first, limit: 0 }));
    searchAnswerJson(await core.audiences.search(normalizeAudienceRequest(bodies.deep)));
  } catch {
    // Nothing to warm (a file that cannot answer): the first request meets the same and says so.
  }
}
