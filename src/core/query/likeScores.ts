// The embedded engine's lookalike scores (`like`, docs/insight.md): a position's score is the sum of
// the model's weights of its values, read from the vectors through one small table a field (a
// dictionary code's weight, or an integer value's), so scoring a state is a few array reads a person.
import type { ResolvedLike } from '../audience/contract/engine';
import type { Dataset, PositionRange } from '../dataset/read/dataset';

/** A weight table a field: the weight of each dictionary code, or of each integer value (beyond the table: 0). */
function weightTable(dataset: Dataset, range: PositionRange, field: number, byValue: ReadonlyMap<string | number, number>) {
  const column = dataset.column(field, range);
  if (column.encoding === 'dict') return { data: column.data, table: Int32Array.from(column.dict!, (v) => byValue.get(v) ?? 0) };
  if (column.encoding !== 'value') throw new Error(`${column.field} has no values to weigh.`);
  let most = -1;
  for (const v of byValue.keys()) if (typeof v === 'number' && v >= 0 && v > most) most = v;
  const table = new Int32Array(most + 1);
  for (const [v, w] of byValue) if (typeof v === 'number' && v >= 0) table[v] = w;
  return { data: column.data, table };
}

/** The score of a position of `range` (an absolute position, as the vectors are read). */
export function likeScoresOf(dataset: Dataset, range: PositionRange, like: ResolvedLike): (pos: number) => number {
  const tables = like.weights.filter((w) => w.byValue.size > 0).map((w) => weightTable(dataset, range, w.field, w.byValue));
  return (pos) => {
    let score = 0;
    for (let f = 0; f < tables.length; f++) {
      const { data, table } = tables[f]!;
      score += table[data[pos]!] ?? 0;
    }
    return score;
  };
}
