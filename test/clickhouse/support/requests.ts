// Generated audience requests over real values of the test dataset (fast-check, fixed seed): filters
// on coded, integer, hashed and free fields (with values that exist, values that do not and hostile
// strings), the list controls of extensions.md, and pages from the first to past the end.
import fc from 'fast-check';
import type { SqlOracle } from '../../support/oracle';

export interface GeneratedRequest {
  path: '/api/audiences/preview' | '/api/audiences/search';
  body: Record<string, unknown>;
}

const STATES = ['CA', 'TX', 'NY', 'WY', 'PA', 'DC'];
const HOSTILE = ["X' OR 1=1 --", "O'BRIEN", 'A\\', "\\'", 'É', '日本', '\u0000', 'A\tB', 'A\nB', '%', '_', '"', '😀', '\uD800'];

export function generateRequests(oracle: SqlOracle, count: number, seed: number, exclusions: string[]): GeneratedRequest[] {
  const distinct = new Map<string, Array<string | number>>();
  const valuesOf = (state: string, field: string) => {
    const key = `${state}|${field}`;
    if (!distinct.has(key)) distinct.set(key, oracle.distinct(state, field));
    return distinct.get(key)!;
  };
  const places = new Map(STATES.map((s) => [s, oracle.places(s)]));
  const stateArb = fc.constantFrom(...STATES);
  const stringField = fc.constantFrom('GENDER', 'MARRIEDCD', 'HOMEOWNERC', 'ZIP', 'FNAME', 'CITY', 'PHONE', 'DNC', 'DPV', 'LNAME', 'EHI');
  const integerField = fc.constantFrom('AGE', 'LOR', 'HHNBR');
  const filterArb = (state: string) =>
    fc.oneof(
      fc
        .tuple(stringField, fc.array(fc.nat(), { minLength: 1, maxLength: 4 }), fc.nat(4), fc.constantFrom(...HOSTILE))
        .map(([field, picks, dice, bad]) => {
          // One filter in five carries a hostile or absent value too: it must match nothing, alike on both engines.
          const hostile = dice === 0;
          const known = valuesOf(state, field).map(String);
          const values = known.length ? picks.map((k) => known[k % known.length]!) : [];
          if (hostile || values.length === 0) values.push(bad);
          return [field, values.map((v, i) => (i % 2 ? v.toLowerCase() : v))];
        }),
      fc
        .tuple(
          integerField,
          fc.array(fc.tuple(fc.nat(90), fc.nat(30), fc.constantFrom('exact', 'band', 'plus')), { minLength: 1, maxLength: 3 }),
        )
        .map(([field, bands]) => [
          field,
          bands.map(([lo, width, kind]) => (kind === 'exact' ? lo : kind === 'plus' ? `${lo}+` : `${lo}-${lo + width}`)),
        ]),
    );
  const controlsArb = (state: string) =>
    fc.record(
      {
        contact: fc.constantFrom({ phone: 'callable' }, { mail: 'deliverable' }, { phone: 'callable', mail: 'deliverable' }),
        households: fc.constantFrom('one', 'all'),
        sample: fc.oneof(
          fc.record({ every: fc.integer({ min: 1, max: 9 }) }),
          fc.record({ size: fc.integer({ min: 1, max: 400 }), seed: fc.integer() }),
        ),
        near: fc.tuple(fc.nat(), fc.integer({ min: 1, max: 120 }), fc.boolean()).map(([k, miles, byZip]) => {
          const people = places.get(state)!;
          if (people.length === 0) return { lat: 40, lon: -100, miles };
          const p = people[k % people.length]!;
          if (byZip) return { zip: String(valuesOf(state, 'ZIP')[k % valuesOf(state, 'ZIP').length] ?? '10001'), miles };
          return { lat: p.lat, lon: p.lon, miles };
        }),
        exclude: exclusions.length ? fc.subarray(exclusions, { minLength: 1 }) : fc.constant([]),
      },
      { requiredKeys: [] },
    );
  const requestArb = stateArb.chain((state) =>
    fc.record({
      state: fc.constantFrom(state, state.toLowerCase()),
      filters: fc.array(filterArb(state), { maxLength: 2 }),
      controls: fc.option(controlsArb(state), { freq: 2 }),
      search: fc.boolean(),
      limit: fc.constantFrom(0, 1, 7, 25, 100),
      skipKind: fc.constantFrom('start', 'small', 'deep', 'past'),
      skipSeed: fc.nat(),
    }),
  );
  return fc.sample(requestArb, { seed, numRuns: count }).map((r) => {
    const n = oracle.count(r.state.toUpperCase(), r.filters as Array<[string, Array<string | number>]>);
    const skip =
      r.skipKind === 'start'
        ? 0
        : r.skipKind === 'small'
          ? r.skipSeed % 60
          : r.skipKind === 'deep'
            ? r.skipSeed % Math.max(1, n)
            : n + (r.skipSeed % 5);
    const body: Record<string, unknown> = { state: r.state, filters: r.filters, limit: r.limit, skip, ...(r.controls ?? {}) };
    return { path: r.search ? '/api/audiences/search' : '/api/audiences/preview', body };
  });
}
