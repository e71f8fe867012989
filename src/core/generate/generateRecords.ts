// The generator's record stream: `rows` records in (STATE, PID) order from one seed. Its own module
// (no SQLite, no writer) so that a worker thread (generateWorker.ts) can run it.
import { drawAddress } from './address';
import { apportion } from './apportion';
import { zipProfile } from './census';
import { householdCodes } from './codeBook';
import { geography } from './geography';
import { PidSequence, randomHex } from './ids';
import { names } from './names';
import { drawHousehold, householdSize } from './people';
import { Prng } from './prng';
import { personRecord, type GeneratedRecord } from './record';

/** `rows` records in (STATE, PID) order, each a new array of FIELDS.length values. */
export function* generateRecords(rows: number, seed: number): Generator<GeneratedRecord> {
  const rng = new Prng(seed);
  const nameLists = names();
  const places = geography();
  let serial = 0;
  let households = 0;
  for (const [state, count] of apportion(rows)) {
    if (count === 0) continue;
    const geo = places.get(state)!;
    const pids = new PidSequence(count);
    for (let i = 0; i < count;) {
      // A household never straddles states: its size is capped by the people the state has left.
      const household = drawHousehold(rng, nameLists, Math.min(householdSize(rng), count - i));
      const zip = geo.zips[geo.byPopulation.draw(rng)]!;
      const profile = zipProfile(zip);
      const codes = householdCodes(rng, household, profile, state, household.members[0]!.age);
      const context = {
        state,
        zip,
        profile,
        household,
        codes,
        address: drawAddress(rng, nameLists, zip, codes.dwelling, households++),
        hhid: randomHex(rng, 12),
      };
      for (const person of household.members) yield personRecord(rng, context, person, pids.pid(rng, i++, serial++));
    }
  }
}
