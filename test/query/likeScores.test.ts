// A lookalike's scores (likeScores.ts), summed a field at a time over blocks of a state, are each
// person's sum of the weights of their values, as a plain reading of each person's values gives it:
// for dictionary fields, integer ones (AGE) and a two-byte one (ZIP), with values the weights do not
// name, asked for in any order (a block is scored when first asked), in a state of several blocks.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ResolvedLike } from '../../src/core/audience/contract/engine';
import { Dataset } from '../../src/core/dataset/read/dataset';
import { generateDataset } from '../../src/core/generate';
import { likeScoresOf } from '../../src/core/query/likeScores';
import { fieldIndex } from '../../src/shared/fields';

let dir: string;
let dataset: Dataset;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-like-scores-'));
  const path = join(dir, 'd.sqlite');
  // California holds about an eighth of the records: several blocks of 4,096 positions.
  generateDataset({ rows: 110000, seed: 5, out: path });
  dataset = Dataset.open(path);
}, 120_000);
afterAll(() => {
  dataset?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A whole-number weight for each of some of a field's values held in the state (every other one left out). */
function weightsOf(field: number, range: { first: number; count: number }): Map<string | number, number> {
  const column = dataset.column(field, range);
  const held = new Set<string | number>();
  for (let pos = range.first; pos < range.first + range.count; pos++)
    held.add(column.dict ? column.dict[column.data[pos]!]! : column.data[pos]!);
  const byValue = new Map<string | number, number>();
  [...held].forEach((value, k) => {
    if (k % 2 === 0) byValue.set(value, ((k * 7919) % 2001) - 1000);
  });
  return byValue;
}

it('scores each person with the sum of their values’ weights, whatever order they are asked in', () => {
  const range = dataset.stateRange('CA');
  expect(range.count).toBeGreaterThan(3 * 4096);
  const fields = ['GENDER', 'EHI', 'HOMEOWNERC', 'AGE', 'ZIP', 'CHILD'].map((name) => fieldIndex(name));
  const like: ResolvedLike = {
    seed: { kind: 'audience', key: 'seed', audience: { state: 'CA', filters: [] } },
    top: 10,
    weights: fields.map((field) => ({ field, byValue: weightsOf(field, range) })),
  };
  const columns = fields.map((field) => dataset.column(field, range));
  const expected = (pos: number): number =>
    columns.reduce((sum, column, f) => {
      const value = column.dict ? column.dict[column.data[pos]!]! : column.data[pos]!;
      return sum + (like.weights[f]!.byValue.get(value) ?? 0);
    }, 0);
  const score = likeScoresOf(dataset, range, like);
  // From the last position backwards in big strides, then every position: blocks scored out of order, then all.
  const asked = [];
  for (let pos = range.first + range.count - 1; pos >= range.first; pos -= 977) asked.push(pos);
  for (let pos = range.first; pos < range.first + range.count; pos++) asked.push(pos);
  let nonZero = 0;
  for (const pos of asked) {
    const want = expected(pos);
    if (score(pos) !== want) expect(score(pos), `position ${pos}`).toBe(want);
    if (want !== 0) nonZero++;
  }
  expect(nonZero).toBeGreaterThan(range.count / 2);
});
