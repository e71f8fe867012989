// Each record's household within a state as a small number, for "one person a household"
// (extensions.md `households`). Two records get the same number exactly when their HHID strings
// are equal: from the HHID vector's hashes where the file lists the hashes that two households of
// a state share (docs/dataset-format.md, "Household hashes"), those hashes' records told apart by
// the writer's list of which household of the hash each is (or read, when meta lacks that list);
// from every record's HHID string when meta lacks the list of hashes.
import { fieldIndex } from '../../shared/fields';
import type { Dataset, StateRange } from '../dataset/read/dataset';
import { numberKeys } from '../collections/keyNumbers';

const HHID = fieldIndex('HHID');
/** Records whose HHID strings are read at once (the colliding ones are few: tens in a 10M file). */
const READ_BATCH = 4096;

/**
 * A number below the state's count for each of its positions (from `range.first`), the same for two
 * positions exactly when they are one household.
 */
export function householdNumbers(dataset: Dataset, range: StateRange): Uint32Array {
  const collisions = dataset.householdCollisions();
  if (collisions && dataset.columnInfo(HHID).encoding === 'hash') return fromHashes(dataset, range, collisions);
  return fromRecords(dataset, range);
}

/** From the HHID vector: a hash is one household unless it is listed, and then the splits (or records) say. */
function fromHashes(dataset: Dataset, range: StateRange, collisions: ReadonlySet<number>): Uint32Array {
  const data = dataset.column(HHID, range).data;
  // Hashes fit 32 bits; only a tiny file's could all fit a narrower vector.
  const hashes = data instanceof Uint32Array ? data : Uint32Array.from(data);
  const { numbers, count, setAside } = numberKeys(hashes, range.first, range.count, collisions);
  // Numbers for the listed hashes' households follow the others': only distinctness matters.
  const splits = dataset.householdSplits();
  if (splits) numberSplit(hashes, range, splits, setAside, numbers, count);
  else numberByRecords(dataset, range, setAside, numbers, count);
  return numbers;
}

/** The listed hashes' records numbered by (hash, which household of the hash) from the writer's list. */
function numberSplit(
  hashes: Uint32Array,
  range: StateRange,
  splits: ReadonlyMap<number, number>,
  setAside: Uint32Array,
  numbers: Uint32Array,
  next: number,
): void {
  const numberOf = new Map<string, number>();
  for (const i of setAside) {
    const key = `${hashes[range.first + i]!}/${splits.get(range.first + i) ?? 0}`;
    let n = numberOf.get(key);
    if (n === undefined) numberOf.set(key, (n = next++));
    numbers[i] = n;
  }
}

/** The listed hashes' records numbered by their HHID strings, read (files written before the list of splits). */
function numberByRecords(dataset: Dataset, range: StateRange, setAside: Uint32Array, numbers: Uint32Array, next: number): void {
  const byHhid = new Map<string, number>();
  for (let from = 0; from < setAside.length; from += READ_BATCH) {
    const indexes = setAside.subarray(from, from + READ_BATCH);
    const positions = Array.from(indexes, (i) => range.first + i);
    dataset.valuesOf(positions, [HHID]).forEach(([hhid], k) => {
      let n = byHhid.get(hhid as string);
      if (n === undefined) byHhid.set(hhid as string, (n = next++));
      numbers[indexes[k]!] = n;
    });
  }
}

/** From every record's HHID string: files without the list of colliding hashes. */
function fromRecords(dataset: Dataset, range: StateRange): Uint32Array {
  const numbers = new Uint32Array(range.count);
  const seen = new Map<string, number>();
  let k = 0;
  for (const [hhid] of dataset.rangeValues(range.first, range.count, [HHID])) {
    let n = seen.get(hhid as string);
    if (n === undefined) seen.set(hhid as string, (n = seen.size));
    numbers[k++] = n;
  }
  return numbers;
}
