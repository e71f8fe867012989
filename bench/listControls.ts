// The list controls of extensions.md beside the plain count of the same audience, on the biggest
// state: what households, contact, exclusions and samples cost on top of a count (cache off, so each
// run does the whole work; per-state household numbers and exclusion marks are read once, at first
// use, which is timed apart), and paging a household-deduplicated audience through the cache.
import type { Audience, RecordMatcher, ResolvedControls } from '../src/core/audience/contract/engine';
import type { EmbeddedEngine } from '../src/core/query/embeddedEngine';
import { normalizeAudienceRequest } from '../src/shared/audienceRequest';
import { summarize, timeIt, type Summary } from './stats';
import { spreadSkips } from './workload';

export interface ListControlRow {
  what: string;
  engine: Summary;
  /** p95 over the plain count's p95. */
  ratio: number;
}

const SEED_FILTERS: Array<[string, Array<string | number>]> = [
  ['GENDER', ['F']],
  ['MARRIEDCD', ['M']],
  ['AGE', ['25-29', '45-49']],
];

function controls(partial: Partial<ResolvedControls>): ResolvedControls {
  const c = {
    near: null,
    contact: { phone: false, mail: false },
    exclusions: [],
    inclusions: [],
    like: null,
    households: 'all' as const,
    sample: null,
    ...partial,
  };
  return { ...c, key: JSON.stringify({ ...c, exclusions: c.exclusions.map((e) => (e.kind === 'people' ? e.matcher.key : e.key)) }) };
}

async function summary(repeat: number, run: () => unknown): Promise<Summary> {
  run();
  const times: number[] = [];
  for (let i = 0; i < repeat; i++) times.push(await timeIt(run));
  return summarize(times);
}

export async function measureListControls(
  engine: EmbeddedEngine,
  warmEngine: EmbeddedEngine,
  state: string,
  repeat: number,
): Promise<{ rows: ListControlRow[]; firstUseMs: { households: number; exclusion: number } }> {
  const base = normalizeAudienceRequest({ state, filters: SEED_FILTERS });
  const plain: Audience = { state, filters: base.filters };
  // An earlier export's people: every 7th person of the state, matched by PID as exportHistory does.
  const range = engine.dataset.stateRange(state);
  const sent = new Set<string>();
  let k = 0;
  for (const [pid] of engine.dataset.rangeValues(range.first, range.count, [0])) if (k++ % 7 === 0) sent.add(pid as string);
  const matcher: RecordMatcher = { key: 'bench:every-7th', fields: ['PID'], matches: (v) => sent.has(v[0] as string) };
  const married: Audience = { state, filters: normalizeAudienceRequest({ state, filters: [['MARRIEDCD', ['M']]] }).filters };

  engine.count(plain); // the filters' vectors load here, so what follows times the controls' own first use
  let t = performance.now();
  engine.count({ ...plain, controls: controls({ households: 'one' }) });
  const households = performance.now() - t;
  t = performance.now();
  engine.count({ ...plain, controls: controls({ exclusions: [{ kind: 'people', matcher }] }) });
  const exclusion = performance.now() - t;

  const cases: Array<[string, ResolvedControls | undefined]> = [
    ['count, seed filters (plain)', undefined],
    ['+ households one, contact phone callable', controls({ households: 'one', contact: { phone: true, mail: false } })],
    ['+ households one, contact phone and mail', controls({ households: 'one', contact: { phone: true, mail: true } })],
    ['+ exclude an earlier export (1 in 7 people)', controls({ exclusions: [{ kind: 'people', matcher }] })],
    ['+ exclude a saved audience (MARRIEDCD M)', controls({ exclusions: [{ kind: 'audience', key: 'bench:married', audience: married }] })],
    ['+ sample every 10', controls({ sample: { every: 10 } })],
    ['+ sample size 1,000, seed 1', controls({ sample: { size: 1000, seed: 1 } })],
  ];
  const rows: ListControlRow[] = [];
  for (const [what, c] of cases) {
    const s = await summary(repeat * 3, () => engine.count(c ? { ...plain, controls: c } : plain));
    rows.push({ what: `${what}, ${state}`, engine: s, ratio: rows.length ? s.p95 / rows[0]!.engine.p95 : 1 });
  }
  const deduped: Audience = { ...plain, controls: controls({ households: 'one', contact: { phone: true, mail: false } }) };
  const total = warmEngine.count(deduped);
  const pages: number[] = [];
  for (const skip of spreadSkips(total, 50)) {
    warmEngine.previewPage(deduped, skip, 50);
    for (let i = 0; i < repeat; i++) pages.push(await timeIt(() => warmEngine.previewPage(deduped, skip, 50)));
  }
  const paged = summarize(pages);
  rows.push({
    what: `preview 50 at 11 skips, households one + callable, ${state} (paging a cached audience)`,
    engine: paged,
    ratio: paged.p95 / rows[0]!.engine.p95,
  });
  return { rows, firstUseMs: { households, exclusion } };
}
