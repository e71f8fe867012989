// The embedded engine's lookalike scores (`like`, docs/insight.md): a position's score is the sum of
// the model's weights of its values, read from the vectors through one small table a field (a
// dictionary code's weight, or an integer value's). Scores are summed a field at a time over a
// block of the state's positions, one tight loop a vector type, instead of a hundred fields'
// look-ups a person through one loop that sees every vector type; a block is scored the first time
// one of its positions is asked for, so a few candidates do not pay for the whole state.
import type { ResolvedLike } from '../audience/contract/engine';
import type { Vector } from '../dataset/codec/columnVector';
import type { Dataset, PositionRange } from '../dataset/read/dataset';

/** Positions scored together. */
const BLOCK = 4096;

interface WeightTable {
  data: Vector;
  /** A number's weight; one-byte and two-byte vectors get a table of every number, so no look-up falls outside it. */
  table: Int32Array;
}
type WeightTable8 = WeightTable & { data: Uint8Array };

/** A weight table a field: the weight of each dictionary code, or of each integer value (beyond the table: 0). */
function weightTable(dataset: Dataset, range: PositionRange, field: number, byValue: ReadonlyMap<string | number, number>): WeightTable {
  const column = dataset.column(field, range);
  const { data } = column;
  const least = data instanceof Uint8Array ? 256 : data instanceof Uint16Array ? 65536 : 0;
  if (column.encoding === 'dict') {
    const table = new Int32Array(Math.max(least, column.dict!.length));
    column.dict!.forEach((v, code) => (table[code] = byValue.get(v) ?? 0));
    return { data, table };
  }
  if (column.encoding !== 'value') throw new Error(`${column.field} has no values to weigh.`);
  let most = -1;
  for (const v of byValue.keys()) if (typeof v === 'number' && v >= 0 && v > most) most = v;
  const table = new Int32Array(Math.max(least, most + 1));
  for (const [v, w] of byValue) if (typeof v === 'number' && v >= 0) table[v] = w;
  return { data, table };
}

// One loop a vector type (scanKernels.ts says why).

function add8(data: Uint8Array, table: Int32Array, first: number, scores: Int32Array, from: number, to: number): void {
  for (let i = from; i < to; i++) scores[i]! += table[data[first + i]!]!;
}

/** Four one-byte fields at once: a quarter of the reads and writes of the scores. */
function add8x4(t: WeightTable8[], first: number, scores: Int32Array, from: number, to: number): void {
  const [a, b, c, d] = [t[0]!.data, t[1]!.data, t[2]!.data, t[3]!.data];
  const [ta, tb, tc, td] = [t[0]!.table, t[1]!.table, t[2]!.table, t[3]!.table];
  for (let i = from; i < to; i++) {
    const p = first + i;
    scores[i]! += ta[a[p]!]! + tb[b[p]!]! + tc[c[p]!]! + td[d[p]!]!;
  }
}

function add16(data: Uint16Array, table: Int32Array, first: number, scores: Int32Array, from: number, to: number): void {
  for (let i = from; i < to; i++) scores[i]! += table[data[first + i]!]!;
}

function addOther(data: Vector, table: Int32Array, first: number, scores: Int32Array, from: number, to: number): void {
  for (let i = from; i < to; i++) scores[i]! += table[data[first + i]!] ?? 0;
}

/** The score of a position of `range` (an absolute position, as the vectors are read). */
export function likeScoresOf(dataset: Dataset, range: PositionRange, like: ResolvedLike): (pos: number) => number {
  const tables = like.weights.filter((w) => w.byValue.size > 0).map((w) => weightTable(dataset, range, w.field, w.byValue));
  const oneByte = tables.filter((t): t is WeightTable8 => t.data instanceof Uint8Array);
  const fours: WeightTable8[][] = [];
  for (let k = 0; k + 4 <= oneByte.length; k += 4) fours.push(oneByte.slice(k, k + 4));
  const rest = [...oneByte.slice(4 * fours.length), ...tables.filter((t) => !(t.data instanceof Uint8Array))];
  const scores = new Int32Array(range.count);
  const scored = new Uint8Array(Math.ceil(range.count / BLOCK));
  const scoreBlock = (block: number): void => {
    const from = block * BLOCK;
    const to = Math.min(from + BLOCK, range.count);
    for (const four of fours) add8x4(four, range.first, scores, from, to);
    for (const { data, table } of rest) {
      if (data instanceof Uint8Array) add8(data, table, range.first, scores, from, to);
      else if (data instanceof Uint16Array) add16(data, table, range.first, scores, from, to);
      else addOther(data, table, range.first, scores, from, to);
    }
    scored[block] = 1;
  };
  return (pos) => {
    const offset = pos - range.first;
    const block = (offset / BLOCK) | 0;
    if (scored[block] === 0) scoreBlock(block);
    return scores[offset]!;
  };
}
