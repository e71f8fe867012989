// An audience's people after its list controls on ClickHouse: one read of the matches (in PID
// order) with the columns the controls need (coordinates, callable, deliverable, HHID), each
// exclusion's PIDs found first, then the audience layer's steps (audience/contract/listSteps.ts) over the
// rows' numbers, so the same people are kept as on the embedded engine: a sample is a shuffle over
// the candidates' order, which SQL cannot repeat.
import type { AudienceSteps } from '../../shared/contract';
import { controlledKey, namedPeople } from '../audience/contract/controls';
import type { Audience, Exclusion, ResolvedControls } from '../audience/contract/engine';
import { runListSteps } from '../audience/contract/listSteps';
import { CALLABLE_SQL, DELIVERABLE_SQL } from './audienceSql';
import { likeScoreSql } from './likeScoreSql';
import { filteredRows, type Cached, type TableReads } from './tableReads';
import { tsvUnescape } from './tsv';
import { floatFromBits } from './values';

export interface ControlledList extends Cached {
  /** The people kept, in PID order. */
  pids: string[];
  steps: AudienceSteps;
}

/** The PIDs of a state an exclusion names. */
export type ExcludedPids = (exclusion: Exclusion, state: string) => Promise<Set<string>>;

/** The audience's people after its list controls (extensions.md's order), as PIDs in PID order, cached. */
export async function controlledList(
  reads: TableReads,
  audience: Audience,
  controls: ResolvedControls,
  excludedPids: ExcludedPids,
): Promise<ControlledList> {
  const key = `list:${controlledKey(audience, controls)}`;
  const hit = reads.cached<ControlledList>(key);
  if (hit) return hit;
  const columns = ['PID'];
  if (controls.near) columns.push('LATITUDE_BITS', 'LONGITUDE_BITS');
  if (controls.contact.phone) columns.push(CALLABLE_SQL);
  if (controls.contact.mail) columns.push(DELIVERABLE_SQL);
  if (controls.households === 'one') columns.push('HHID');
  const score = controls.like ? likeScoreSql(controls.like) : null;
  if (score) columns.push(score);
  const rows = await filteredRows(reads, audience, columns.join(', '));
  const excluded: Array<Set<string>> = [];
  for (const exclusion of namedPeople(controls)) excluded.push(await excludedPids(exclusion, audience.state));
  // A candidate is its row's number; the rows are in PID order.
  const pids = rows.map((r) => r[0]!);
  const at = (name: string): number => columns.indexOf(name);
  const isOne = (column: number) => (k: number) => rows[k]![column] === '1';
  const { kept, steps } = runListSteps(Uint32Array.from(rows.keys()), controls, {
    first: 0,
    coordinates: () => {
      const coordinates = new Float64Array(rows.length * 2);
      rows.forEach((r, k) => {
        coordinates[k * 2] = floatFromBits(r[1]!);
        coordinates[k * 2 + 1] = floatFromBits(r[2]!);
      });
      return coordinates;
    },
    callable: () => isOne(at(CALLABLE_SQL)),
    deliverable: () => isOne(at(DELIVERABLE_SQL)),
    excluded: (_exclusion, index) => {
      const set = excluded[index]!;
      return (k) => set.has(pids[k]!);
    },
    likeScores: () => {
      const c = at(score!);
      return (k) => Number(rows[k]![c]);
    },
    households: () => {
      const c = at('HHID');
      const seen = new Map<string, number>();
      const households = new Uint32Array(rows.length);
      rows.forEach((r, k) => {
        let h = seen.get(r[c]!);
        if (h === undefined) seen.set(r[c]!, (h = seen.size));
        households[k] = h;
      });
      return households;
    },
  });
  const keptPids = Array.from(kept, (k) => tsvUnescape(pids[k]!));
  const list: ControlledList = { pids: keptPids, steps, bytes: 256 + keptPids.length * 80 };
  reads.remember(key, list);
  return list;
}
