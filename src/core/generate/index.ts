// The bundled dataset's generator: deterministic (same rows and seed, byte-identical records),
// believable (states by adult population, real ZIPs, households, Census names), and fast enough to
// write 30,000+ records a second. Records come out in (STATE, PID) order, as DatasetWriter wants:
// within a state, PIDs rise by construction, so nothing is buffered or sorted.
import type { RecordValues } from '../dataset/recordFormat';
import { DatasetWriter } from '../dataset/datasetWriter';
import { randomAddress } from './address';
import { censusProfile } from './census';
import { apportion, STATE_FACTS } from './data/states';
import { zipSamplers } from './geography';
import { nameSamplers } from './names';
import { householdMembers, householdSize } from './people';
import { Prng } from './prng';
import { householdRecords } from './recordBuilder';

const PREFIX_SPACE = 2 ** 48;

/** A bijection on 32-bit integers: distinct counters give distinct PID middles, so PIDs never collide. */
function mix32(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x45d9f3b) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x45d9f3b) >>> 0;
  return (x ^ (x >>> 16)) >>> 0;
}

export function* generateRecords(rows: number, seed: number): Generator<RecordValues> {
  const rng = new Prng(seed);
  const names = nameSamplers();
  const zips = zipSamplers();
  let serial = 0;
  for (const [state, count] of apportion(rows)) {
    if (count === 0) continue;
    const facts = STATE_FACTS[state]!;
    const areas = zips.get(state)!;
    // The i-th person of the state gets a PID prefix inside the i-th slice of the 48-bit space:
    // prefixes rise strictly with i and still look random.
    const step = PREFIX_SPACE / count;
    const pid = (i: number): string =>
      Math.floor((i + rng.float()) * step).toString(16).toUpperCase().padStart(12, '0') +
      mix32(serial++).toString(16).toUpperCase().padStart(8, '0') +
      rng.hex(12);
    for (let i = 0; i < count; ) {
      const size = Math.min(householdSize(rng), count - i);
      const members = householdMembers(rng, names, size);
      const area = areas.sample(rng);
      const address = randomAddress(rng, names, area, rng.chance(0.27));
      const pids = members.map((_, k) => pid(i + k));
      yield* householdRecords(rng, {
        state,
        stateFips: facts.fips,
        areaCodes: facts.areaCodes,
        area,
        address,
        census: censusProfile(area.zip, area.countyZips, seed),
        hhid: rng.hex(96),
        members,
      }, pids);
      i += size;
    }
  }
}

export interface GenerateOptions {
  rows: number;
  seed: number;
  out: string;
  onProgress?: (done: number) => void;
  /** See DatasetWriter; tests lower it to exercise hashed fields on small data. */
  dictionaryLimit?: number;
}

/** Writes a generated dataset to `out` atomically; returns how many records and how long it took. */
export function generateDataset({ rows, seed, out, onProgress, dictionaryLimit }: GenerateOptions): { records: number; seconds: number } {
  const started = performance.now();
  const writer = new DatasetWriter(out, { generator: 'audience-desk', seed: String(seed), rows: String(rows) }, dictionaryLimit);
  try {
    let done = 0;
    for (const record of generateRecords(rows, seed)) {
      writer.append(record);
      if (onProgress && ++done % 10_000 === 0) onProgress(done);
    }
    const { records } = writer.finish();
    return { records, seconds: (performance.now() - started) / 1000 };
  } catch (e) {
    writer.abort();
    throw e;
  }
}
