// Each record's household within a state as a small number, for "one person a household"
// (extensions.md `households`). Two records get the same number exactly when their HHID strings
// are equal: from the HHID vector's hashes where the file lists the hashes that two households of
// a state share (docs/dataset-format.md, "Household hashes"), those hashes' records read to tell
// their households apart; from every record's HHID string in files written before that list.
import { fieldIndex } from '../../shared/fields';
import type { Dataset, StateRange } from '../dataset/dataset';
import { Uint32Table } from '../dataset/uint32Table';

const HHID = fieldIndex('HHID');
/** What the table of hashes gives a listed hash: its records are read. */
const READ_RECORDS = 0x7fffffff;
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

/** From the HHID vector: a hash is one household unless it is listed, and then its records say. */
function fromHashes(dataset: Dataset, range: StateRange, collisions: ReadonlySet<number>): Uint32Array {
  const hashes = dataset.column(HHID, range).data;
  const numbers = new Uint32Array(range.count);
  const table = new Uint32Table();
  for (const hash of collisions) table.add(hash, READ_RECORDS);
  let next = 0;
  const listed: number[] = [];
  for (let i = 0; i < range.count; i++) {
    const hash = hashes[range.first + i]!;
    let n = table.get(hash);
    if (n < 0) table.add(hash, (n = next++));
    if (n === READ_RECORDS) listed.push(range.first + i);
    else numbers[i] = n;
  }
  // Numbers for the listed hashes' households follow the others': only distinctness matters.
  const byHhid = new Map<string, number>();
  for (let from = 0; from < listed.length; from += READ_BATCH) {
    const positions = listed.slice(from, from + READ_BATCH);
    dataset.valuesOf(positions, [HHID]).forEach(([hhid], k) => {
      let n = byHhid.get(hhid as string);
      if (n === undefined) byHhid.set(hhid as string, (n = next++));
      numbers[positions[k]! - range.first] = n;
    });
  }
  return numbers;
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
