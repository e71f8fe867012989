// The ClickHouse engine's lookalike scores (`like`, docs/insight.md): a person's score as an SQL
// expression, the sum of the model's whole-number weights of their values, so the server scores the
// rows it reads for the list controls and the same integers come out as on the embedded engine.
import type { ResolvedLike } from '../audience/contract/engine';
import { FIELDS } from '../../shared/fields';
import { sqlIdentifier, sqlNumber } from './sqlLiteral';
import { literalValues, type SqlValues } from './sqlValues';

/** The score of a row: each field's weight by its value (a value not weighed: 0), added up as Int64. */
export function likeScoreSql(like: Pick<ResolvedLike, 'weights'>, values: SqlValues = literalValues()): string {
  const terms = like.weights
    .filter((w) => w.byValue.size > 0)
    .map(({ field, byValue }) => {
      const column = sqlIdentifier(FIELDS[field]!.name);
      const branches = Array.from(byValue, ([value, weight]) => {
        const literal = typeof value === 'number' ? sqlNumber(value) : values.string(value);
        return `${column} = ${literal}, ${sqlNumber(weight)}`;
      });
      return `toInt64(multiIf(${branches.join(', ')}, 0))`;
    });
  return terms.length ? `(${terms.join(' + ')})` : 'toInt64(0)';
}
