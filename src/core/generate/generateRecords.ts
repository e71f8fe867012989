// The generator's record stream: `rows` records in (STATE, PID) order from one seed. Its own module
// (no SQLite, no writer) so that a worker thread (generateWorker.ts) can run it.
//
// PIDs say nothing about household or place, as in a real file: a state's people are laid out in
// households first (StateHouseholds), then its PIDs, which rise by construction (ids.ts), are dealt
// out by a keyed permutation (permutation.ts), so the i-th PID goes to a person in a household drawn
// at random. Records come out in PID order without buffering: each one's household is made again
// from its own random stream (household.ts) and the person from theirs.
import { apportion } from './apportion';
import { geography } from './geography';
import { makeHousehold } from './household';
import { PidSequence } from './ids';
import { names } from './names';
import { KeyedPermutation } from './permutation';
import { Kind, Prng } from './prng';
import { personRecord, type GeneratedRecord } from './record';
import { StateHouseholds } from './stateHouseholds';

/** `rows` records in (STATE, PID) order, each a new array of FIELDS.length values. */
export function* generateRecords(rows: number, seed: number): Generator<GeneratedRecord> {
  const nameLists = names();
  const places = geography();
  // Dataset-wide numbers of the people and households before the current state.
  let people = 0;
  let households = 0;
  const states = apportion(rows);
  for (let s = 0; s < states.length; s++) {
    const [state, count] = states[s]!;
    if (count === 0) continue;
    const geo = places.get(state)!;
    const layout = new StateHouseholds(seed, households, count);
    const keys = new Prng(seed, s, Kind.PidOrder);
    const order = new KeyedPermutation(count, [keys.next(), keys.next(), keys.next(), keys.next(), keys.next(), keys.next()]);
    const pids = new PidSequence(count);
    for (let i = 0; i < count; i++) {
      const slot = order.at(i);
      const h = layout.householdOf(slot);
      const context = makeHousehold(seed, households + h, layout.size(h), state, geo, nameLists);
      const person = context.household.members[slot - layout.start(h)]!;
      const rng = new Prng(seed, people + i, Kind.Person);
      yield personRecord(rng, context, person, pids.pid(rng, i, people + i));
    }
    people += count;
    households += layout.count;
  }
}
