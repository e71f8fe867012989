// "One person a household" numbers a state's households from the HHID vector's hashes, reading
// records only for the hashes the writer listed as shared by two households of a state
// (householdCollisions.ts). On real files with HHIDs chosen to collide: the writer lists exactly the
// hashes two households of one state share (not those shared across states), by either way records
// arrive; every state's households are exactly those of the HHID strings; the engine keeps the
// lowest PID of each, as a file without the list (written before it) does from its records.
import { appendAsImported } from '../../support/appendAsImported';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { stringHash } from '../../../src/core/dataset/codec/columnVector';
import { Dataset } from '../../../src/core/dataset/read/dataset';
import { DatasetWriter } from '../../../src/core/dataset/write/datasetWriter';
import { HHID_COLLISIONS_KEY, HHID_SPLITS_KEY } from '../../../src/core/dataset/format/householdCollisions';
import { generateRecords } from '../../../src/core/generate';
import { EmbeddedEngine } from '../../../src/core/query/embeddedEngine';
import { householdNumbers } from '../../../src/core/query/householdNumbers';
import { fieldIndex } from '../../../src/shared/fields';
import { engineAudience } from '../../support/audienceQueries';
import { copyWithMeta } from '../../support/datasetMeta';

const PID = fieldIndex('PID');
const HHID = fieldIndex('HHID');
const STATE = fieldIndex('STATE');
// Two pairs of different HHIDs with the same FNV-1a hash (found by a search over such strings).
const A = 'ab'.repeat(45) + '05b9cc';
const B = 'ab'.repeat(45) + '0c2b18';
const C = 'ab'.repeat(45) + '05b9cb';
const D = 'ab'.repeat(45) + '0c2b19';

let dir: string;
let records: Array<Array<string | number>>;
let path: string;

/** Gives `hhid` to the `count` records of `state` from its `from`-th on. */
function moveInto(state: string, from: number, count: number, hhid: string): void {
  records
    .filter((r) => r[STATE] === state)
    .slice(from, from + count)
    .forEach((r) => (r[HHID] = hhid));
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-households-'));
  records = [...generateRecords(3000, 12)].map((r) => [...r]);
  // CA: A and B are two households sharing a hash (3 and 2 people, their members apart in PID order).
  moveInto('CA', 5, 3, A);
  moveInto('CA', 40, 1, B);
  moveInto('CA', 2, 1, B);
  // C in NY and D in TX: the same hash, but in different states, so no state has two households of it.
  moveInto('NY', 3, 2, C);
  moveInto('TX', 7, 2, D);
  path = join(dir, 'values.sqlite');
  const writer = new DatasetWriter(path);
  for (const r of records) writer.append(r);
  writer.finish();
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A copy of the file with some meta entries removed (null) or changed, as another writer would have
 * left it: its checksum redone, so only the entries differ.
 */
function withMeta(name: string, entries: Record<string, string | null>): string {
  return copyWithMeta(path, join(dir, name), entries);
}

/**
 * The writer's list of split households, from the records by its definition: in each state, the
 * HHIDs sharing a hash in order of their first record; the records of the second, third… are listed
 * with 1, 2, … (records are in position order).
 */
function expectedSplits(): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let state = '';
  let byHash = new Map<number, string[]>();
  records.forEach((r, position) => {
    if (r[STATE] !== state) [state, byHash] = [r[STATE] as string, new Map()];
    const hhid = r[HHID] as string;
    const hhids = byHash.get(stringHash(hhid)) ?? [];
    if (!hhids.includes(hhid)) hhids.push(hhid);
    byHash.set(stringHash(hhid), hhids);
    if (hhids.indexOf(hhid) > 0) out.push([position, hhids.indexOf(hhid)]);
  });
  return out;
}

/** Numbers relabelled 0, 1, 2, … in order of first appearance: two numberings of one partition become equal. */
function canonical(numbers: ArrayLike<number>): number[] {
  const seen = new Map<number, number>();
  return Array.from(numbers, (n) => {
    if (!seen.has(n)) seen.set(n, seen.size);
    return seen.get(n)!;
  });
}

/** The partition of a state's positions by their HHID strings. */
function byStrings(dataset: Dataset, state: string): number[] {
  const range = dataset.stateRange(state);
  const seen = new Map<string, number>();
  return [...dataset.rangeValues(range.first, range.count, [HHID])].map(([h]) => {
    if (!seen.has(h as string)) seen.set(h as string, seen.size);
    return seen.get(h as string)!;
  });
}

/** The PIDs "households: one" keeps in a state, by the definition: the lowest PID of each HHID. */
function lowestPidPerHousehold(state: string): string[] {
  const kept = new Map<string, string>();
  for (const r of records) {
    if (r[STATE] !== state) continue;
    const pid = r[PID] as string;
    const hhid = r[HHID] as string;
    if (!kept.has(hhid) || pid < kept.get(hhid)!) kept.set(hhid, pid);
  }
  return [...kept.values()].sort();
}

async function onePerHousehold(engine: EmbeddedEngine, state: string): Promise<string[]> {
  const audience = await engineAudience(engine, { state, filters: [], households: 'one' });
  const { total, results } = engine.previewPage(audience, 0, 10_000);
  expect(results).toHaveLength(total);
  return results.map((r) => r.pid);
}

describe('household hash collisions', () => {
  it('are the hashes two households of one state share, and only those', () => {
    expect(A).not.toBe(B);
    expect(stringHash(A)).toBe(stringHash(B));
    expect(stringHash(C)).toBe(stringHash(D));
    const dataset = Dataset.open(path);
    try {
      expect(dataset.householdCollisions()).toEqual(new Set([stringHash(A)]));
      // The second household of A's hash in CA is listed, record by record (three or two people).
      const splits = expectedSplits();
      expect(splits.length).toBeGreaterThanOrEqual(2);
      expect(dataset.meta[HHID_SPLITS_KEY]).toBe(JSON.stringify(splits));
    } finally {
      dataset.close();
    }
  });

  it("are found the same when records arrive as the import gives them (text and the reader's extras)", () => {
    const texts = join(dir, 'texts.sqlite');
    const writer = new DatasetWriter(texts);
    const columns = writer.newColumnSet();
    appendAsImported(writer, records);
    for (const r of records) columns.push(r);
    writer.finish(columns.finished());
    const dataset = Dataset.open(texts);
    try {
      expect(dataset.meta[HHID_COLLISIONS_KEY]).toBe(JSON.stringify([stringHash(A)]));
      expect(dataset.meta[HHID_SPLITS_KEY]).toBe(JSON.stringify(expectedSplits()));
    } finally {
      dataset.close();
    }
  });

  it('number every state’s households exactly as their HHID strings do, reading no record', () => {
    const dataset = Dataset.open(path);
    try {
      const reads = vi.spyOn(dataset, 'valuesOf');
      const numbered = dataset.stateCounts().map((range) => canonical(householdNumbers(dataset, range)));
      expect(reads).not.toHaveBeenCalled();
      reads.mockRestore();
      dataset.stateCounts().forEach((range, k) => expect(numbered[k], range.state).toEqual(byStrings(dataset, range.state)));
      const ca = canonical(householdNumbers(dataset, dataset.stateRange('CA')));
      // A's three people are one household, B's two another.
      expect(new Set(ca).size).toBe(new Set(records.filter((r) => r[STATE] === 'CA').map((r) => r[HHID])).size);
    } finally {
      dataset.close();
    }
  });

  it('number them exactly from the listed hashes’ records in a file without the list of splits', () => {
    const dataset = Dataset.open(withMeta('no-splits.sqlite', { [HHID_SPLITS_KEY]: null }));
    try {
      expect(dataset.householdSplits()).toBeNull();
      const reads = vi.spyOn(dataset, 'valuesOf');
      const numbered = dataset.stateCounts().map((range) => canonical(householdNumbers(dataset, range)));
      // Only CA has a listed hash: its five records are read, no other.
      expect(reads.mock.calls.map(([positions]) => positions.length)).toEqual([5]);
      reads.mockRestore();
      dataset.stateCounts().forEach((range, k) => expect(numbered[k], range.state).toEqual(byStrings(dataset, range.state)));
    } finally {
      dataset.close();
    }
  });

  it('are not used when this version cannot read them: stderr says so, and the records are read', () => {
    // Household 0 is never listed: a list that names it is not the writer's.
    const dataset = Dataset.open(withMeta('unreadable-splits.sqlite', { [HHID_SPLITS_KEY]: '[[3,0]]' }));
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      expect(dataset.householdSplits()).toBeNull();
      expect(errors.mock.calls.map((c) => String(c[0]))).toEqual([
        expect.stringContaining('the list of split households is unreadable (not a list of [position, household] pairs)'),
      ]);
      const numbered = canonical(householdNumbers(dataset, dataset.stateRange('CA')));
      expect(numbered).toEqual(byStrings(dataset, 'CA'));
    } finally {
      errors.mockRestore();
      dataset.close();
    }
  });

  it('give "households: one" the lowest PID of each household, as a file without the list does from its records', async () => {
    const older = withMeta('older.sqlite', { [HHID_COLLISIONS_KEY]: null, [HHID_SPLITS_KEY]: null });
    const options = { backgroundVerify: false, selectionCacheBytes: 0 };
    const listed = new EmbeddedEngine(Dataset.open(path), options);
    const unlisted = new EmbeddedEngine(Dataset.open(older), options);
    try {
      expect(unlisted.dataset.householdCollisions()).toBeNull();
      for (const state of ['CA', 'NY', 'TX', 'FL']) {
        const expected = lowestPidPerHousehold(state);
        expect(expected.length, state).toBeLessThan(unlisted.dataset.stateRange(state).count);
        expect(await onePerHousehold(listed, state), state).toEqual(expected);
        expect(await onePerHousehold(unlisted, state), state).toEqual(expected);
      }
    } finally {
      listed.close();
      unlisted.close();
    }
  });
});
