// The generator's record streams, from one seed: the same records in two orders. Their own module
// (no SQLite, no writer) so that a worker thread (generateWorker.ts) can run them.
//
// PIDs say nothing about household or place, as in a real file: a state's people are laid out in
// households first (StateHouseholds), then its PIDs, which rise by construction (ids.ts), are dealt
// out by a keyed permutation (permutation.ts), so the i-th PID goes to a person in a household drawn
// at random. Each household is made from its own random stream (household.ts), each person from theirs.
// - generateRecords: (STATE, PID) order, the order the API answers in, without buffering: each
//   record's household is made again for it.
// - generateStored: the order a file stores them in (docs/dataset-format.md, "Record order"): a
//   state's households by ZIP, a household's members together, each record with its PID's rank in
//   the state (the permutation walked backwards).
// - generateShare: the same, cut into chunks of whole households, of which a thread makes its share
//   (the generator's worker most, the writing thread the rest: workerRecords.ts).
import { apportion } from './apportion';
import { geography, type StateGeography } from './geography';
import { householdZip, makeHousehold } from './household';
import { PidSequence } from './ids';
import { names, type Names } from './names';
import { KeyedPermutation } from './permutation';
import { Kind, Prng } from './prng';
import { personRecord, type GeneratedRecord, type HouseholdContext } from './record';
import { StateHouseholds } from './stateHouseholds';

/** A generated record in storage order, and the rank of its PID among its state's (0 = the lowest). */
export interface StoredRecord {
  record: GeneratedRecord;
  rank: number;
}

/** Households a state may hold for the (ZIP, household) sort key to stay exact in a double. */
const HOUSEHOLD_KEY = 2 ** 30;

/** One state's layout: who lives in which household, and which person takes the i-th PID. */
class StatePlan {
  readonly layout: StateHouseholds;
  readonly order: KeyedPermutation;
  readonly pids: PidSequence;

  constructor(
    readonly seed: number,
    readonly index: number,
    readonly state: string,
    readonly count: number,
    readonly geo: StateGeography,
    /** Dataset-wide numbers of the people and households before this state. */
    readonly peopleBefore: number,
    readonly householdsBefore: number,
  ) {
    this.layout = new StateHouseholds(seed, householdsBefore, count);
    const keys = new Prng(seed, index, Kind.PidOrder);
    this.order = new KeyedPermutation(count, [keys.next(), keys.next(), keys.next(), keys.next(), keys.next(), keys.next()]);
    this.pids = new PidSequence(count);
  }

  household(h: number, nameLists: Names): HouseholdContext {
    return makeHousehold(this.seed, this.householdsBefore + h, this.layout.size(h), this.state, this.geo, nameLists);
  }

  /** The record of the person at `slot` (of household `h`, made as `context`), who takes the state's `rank`-th PID. */
  record(context: HouseholdContext, h: number, slot: number, rank: number): GeneratedRecord {
    const person = context.household.members[slot - this.layout.start(h)]!;
    const rng = new Prng(this.seed, this.peopleBefore + rank, Kind.Person);
    return personRecord(rng, context, person, this.pids.pid(rng, rank, this.peopleBefore + rank));
  }

  /** The state's households by ZIP (as a number), then by their place in the layout. */
  householdsByZip(nameLists: Names): Uint32Array {
    const h = this.layout.count;
    if (h > HOUSEHOLD_KEY) throw new Error('Too many households in one state for the storage order');
    const keys = new Float64Array(h);
    for (let k = 0; k < h; k++)
      keys[k] = householdZip(this.seed, this.householdsBefore + k, this.layout.size(k), this.geo, nameLists) * HOUSEHOLD_KEY + k;
    keys.sort();
    return Uint32Array.from(keys, (key) => key % HOUSEHOLD_KEY);
  }
}

function* statePlans(rows: number, seed: number): Generator<StatePlan> {
  const places = geography();
  let people = 0;
  let households = 0;
  const states = apportion(rows);
  for (let s = 0; s < states.length; s++) {
    const [state, count] = states[s]!;
    if (count === 0) continue;
    const plan = new StatePlan(seed, s, state, count, places.get(state)!, people, households);
    yield plan;
    people += count;
    households += plan.layout.count;
  }
}

/** `rows` records in (STATE, PID) order, each a new array of FIELDS.length values. */
export function* generateRecords(rows: number, seed: number): Generator<GeneratedRecord> {
  const nameLists = names();
  for (const plan of statePlans(rows, seed)) {
    for (let rank = 0; rank < plan.count; rank++) {
      const slot = plan.order.at(rank);
      const h = plan.layout.householdOf(slot);
      yield plan.record(plan.household(h, nameLists), h, slot, rank);
    }
  }
}

/** Records a chunk of generateShare holds at least (whole households, so a few more at most). */
export const CHUNK_RECORDS = 64;

/**
 * generateStored's records cut into chunks of whole households, CHUNK_RECORDS or a few more each
 * (the last may hold fewer), and of those the chunks `mine` takes (by their number from 0).
 * Households and people are made from their own streams, so two threads can each make a share, and
 * their chunks taken in turn are generateStored's records. Every share still lays out every state
 * (households and their ZIPs), which costs about a seventh of making all the records.
 */
export function* generateShare(rows: number, seed: number, mine: (chunk: number) => boolean): Generator<StoredRecord[]> {
  const nameLists = names();
  let chunk = 0;
  let inChunk = 0;
  let records: StoredRecord[] = [];
  for (const plan of statePlans(rows, seed)) {
    for (const h of plan.householdsByZip(nameLists)) {
      const start = plan.layout.start(h);
      const size = plan.layout.size(h);
      if (mine(chunk)) {
        const context = plan.household(h, nameLists);
        for (let slot = start; slot < start + size; slot++) {
          const rank = plan.order.inverse(slot);
          records.push({ record: plan.record(context, h, slot, rank), rank });
        }
      }
      inChunk += size;
      if (inChunk >= CHUNK_RECORDS) {
        if (mine(chunk)) yield records;
        records = [];
        inChunk = 0;
        chunk++;
      }
    }
  }
  if (records.length > 0) yield records;
}

/** The same records as generateRecords, in storage order (states ascending; in each, households by ZIP), with their ranks. */
export function* generateStored(rows: number, seed: number): Generator<StoredRecord> {
  for (const chunk of generateShare(rows, seed, () => true)) yield* chunk;
}
