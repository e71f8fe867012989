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
import { RANK_COLUMN } from './schema';
import { sqlIdentifier } from './sqlLiteral';
import { filteredRows, type Cached, type TableReads } from './tableReads';
import { tsvUnescape } from './tsv';
import { floatFromBits } from './values';

export interface ControlledList extends Cached {
  /** The people kept, in PID order. */
  pids: string[];
  /** Their PID ranks in the state (the table's key, which pages read by). */
  ranks: number[];
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
  const rankAt = columns.push(sqlIdentifier(RANK_COLUMN)) - 1;
  // The score comes last: it is written with the query's binder (its values may be query parameters).
  const like = controls.like;
  const scoreAt = like ? columns.length : -1;
  const rows = await filteredRows(reads, audience, (v) => [...columns, ...(like ? [likeScoreSql(like, v)] : [])].join(', '));
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
      return (k) => Number(rows[k]![scoreAt]);
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
  const keptRanks = Array.from(kept, (k) => Number(rows[k]![rankAt]));
  const list: ControlledList = { pids: keptPids, ranks: keptRanks, steps, bytes: 256 + keptPids.length * 88 };
  reads.remember(key, list);
  return list;
}
