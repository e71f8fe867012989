// Group counts of the people an audience's list controls kept (one a household, a sample, near,
// exclusions). The kept list is a choice SQL cannot repeat (a shuffle's), so the audience's filtered
// rows are read with the fields asked and tallied here, keeping only the listed PIDs.
import { FIELDS } from '../../shared/fields';
import type { Audience, GroupCount } from '../audience/contract/engine';
import { storedColumns } from './schema';
import { filteredRows, type TableReads } from './tableReads';
import { tsvUnescape } from './tsv';
import { valueOf } from './values';

/** Fields whose values are read in one pass, so a large state's rows are not all held at once. */
const FIELDS_READ_TOGETHER = 16;

/** How many kept people hold each combination of the fields' values (catalog indexes). */
export async function keptCombinations(
  reads: TableReads,
  audience: Audience,
  kept: ReadonlySet<string>,
  fieldIndexes: readonly number[],
): Promise<GroupCount[]> {
  const defs = fieldIndexes.map((i) => FIELDS[i]!);
  const counts = new Map<string, number>();
  for (const row of await filteredRows(reads, audience, `PID, ${storedColumns(fieldIndexes)}`)) {
    if (!kept.has(tsvUnescape(row[0]!))) continue;
    const key = row.slice(1).join('\t');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return Array.from(counts, ([key, count]) => ({ values: key.split('\t').map((t, i) => valueOf(defs[i]!.type, t)), count }));
}

/** Each field alone over the kept people, one list a field in the order given. */
export async function keptFieldCounts(
  reads: TableReads,
  audience: Audience,
  kept: ReadonlySet<string>,
  fieldIndexes: readonly number[],
): Promise<GroupCount[][]> {
  const out: GroupCount[][] = [];
  for (let at = 0; at < fieldIndexes.length; at += FIELDS_READ_TOGETHER) {
    const slice = fieldIndexes.slice(at, at + FIELDS_READ_TOGETHER);
    const defs = slice.map((i) => FIELDS[i]!);
    const counts = defs.map(() => new Map<string, number>());
    for (const row of await filteredRows(reads, audience, `PID, ${storedColumns(slice)}`)) {
      if (!kept.has(tsvUnescape(row[0]!))) continue;
      for (let f = 0; f < defs.length; f++) counts[f]!.set(row[f + 1]!, (counts[f]!.get(row[f + 1]!) ?? 0) + 1);
    }
    defs.forEach((def, f) => out.push(Array.from(counts[f]!, ([text, count]) => ({ values: [valueOf(def.type, text)], count }))));
  }
  return out;
}
