// Sets of people as audiences an engine already answers: everyone of a state that a saved audience,
// list or export names (an `include` of it), everyone of a state it does not name (an `exclude` of
// it), and any region of several sets, all through the list controls, so that lookalike seeds,
// overlaps and their cells count the same on every engine.
import type { Audience, Exclusion, ResolvedControls } from './contract/engine';

/** What names a resolved set of people in a cache key. */
export const peopleKey = (e: Exclusion): string => (e.kind === 'audience' ? e.key : e.matcher.key);

/** Controls that only include and exclude sets of people; their key names them. */
export function setControls(inclusions: Exclusion[], exclusions: Exclusion[]): ResolvedControls {
  const key = JSON.stringify({ include: inclusions.map(peopleKey), exclude: exclusions.map(peopleKey) });
  return { near: null, contact: { phone: false, mail: false }, exclusions, inclusions, like: null, households: 'all', sample: null, key };
}

/** Everyone of a state that a set of people names, as an audience. */
export function peopleAudience(state: string, people: Exclusion): Audience {
  return { state, filters: [], controls: setControls([people], []) };
}

/** Everyone of a state a set does not name, as a set of people (to exclude: "not outside the set"). */
export function outside(state: string, people: Exclusion): Exclusion {
  return { kind: 'audience', key: `outside:${peopleKey(people)}`, audience: { state, filters: [], controls: setControls([], [people]) } };
}

/** The people of a state in every set of `inside` and in none of `others`. */
export function regionAudience(state: string, inside: readonly Exclusion[], others: readonly Exclusion[]): Audience {
  const [first, ...rest] = inside;
  if (!first) throw new Error('A region is inside at least one set.');
  return { state, filters: [], controls: setControls([first], [...rest.map((s) => outside(state, s)), ...others]) };
}
