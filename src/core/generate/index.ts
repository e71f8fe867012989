// The dataset generator: believable US person records (states by adult population, real ZIP codes
// and cities, households, Census names), deterministic (the same rows and seed give byte-identical
// records; nothing reads Math.random or the clock) and fast. Records come out in (STATE, PID) order,
// as DatasetWriter wants, without buffering: states in code order, and within a state PIDs rise by
// construction (ids.ts), so a household is a run of consecutive people. Memory stays flat.
import { DatasetWriter } from '../dataset/datasetWriter';
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

export { AGE_REFERENCE } from './people';

/** Bumped whenever the same rows and seed would give different records (stored in the dataset's meta). */
export const GENERATOR_VERSION = '2';
export type { GeneratedRecord } from './record';

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
    for (let i = 0; i < count; ) {
      // A household never straddles states: its size is capped by the people the state has left.
      const household = drawHousehold(rng, nameLists, Math.min(householdSize(rng), count - i));
      const zip = geo.zips[geo.byPopulation.draw(rng)]!;
      const profile = zipProfile(zip);
      const codes = householdCodes(rng, household, profile, state, household.members[0]!.age);
      const context = {
        state, zip, profile, household, codes,
        address: drawAddress(rng, nameLists, zip, codes.dwelling, households++),
        hhid: randomHex(rng, 12),
      };
      for (const person of household.members) yield personRecord(rng, context, person, pids.pid(rng, i++, serial++));
    }
  }
}

export interface GenerateOptions {
  rows: number;
  seed: number;
  out: string;
  onProgress?: (done: number) => void;
  /** Passed to DatasetWriter (distinct values past which a string field is stored as hashes). */
  dictionaryLimit?: number;
}

const PROGRESS_EVERY = 10_000;

/** Generates `rows` records into a new dataset file at `out` (atomically, via DatasetWriter). */
export function generateDataset({ rows, seed, out, onProgress, dictionaryLimit }: GenerateOptions): { records: number; seconds: number } {
  const started = performance.now();
  const writer = new DatasetWriter(
    out,
    { generator: 'audience-desk', generator_version: GENERATOR_VERSION, seed: String(seed), rows: String(rows) },
    dictionaryLimit,
  );
  try {
    let done = 0;
    for (const record of generateRecords(rows, seed)) {
      writer.append(record);
      if (++done % PROGRESS_EVERY === 0) onProgress?.(done);
    }
    const { records } = writer.finish();
    if (done % PROGRESS_EVERY !== 0) onProgress?.(done);
    return { records, seconds: (performance.now() - started) / 1000 };
  } catch (error) {
    writer.abort();
    throw error;
  }
}
