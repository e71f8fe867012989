// An audience's state and filters as a ClickHouse WHERE clause, with the embedded engine's meaning
// (src/core/query/predicates.ts, decisions.md): AND across filters, OR within one; a string filter
// matches values exactly as stored (the request's values arrive upper-cased and "" asks for an
// empty field), an integer filter matches inclusive bands (AGE's "25-29", "65+"). Values are
// literals (sqlLiteral.ts); on a current server they would be query parameters.
import type { IntBand, NormalizedFilter } from '../../shared/audienceRequest';
import { FIELDS } from '../../shared/fields';
import type { Audience } from '../audience/contract/engine';
import { sqlIdentifier, sqlNumber, sqlString, sqlStringList } from './sqlLiteral';

function bandSql(column: string, band: IntBand): string {
  const lo = `${column} >= ${sqlNumber(band.lo)}`;
  if (band.hi === Infinity) return lo;
  if (band.hi === band.lo) return `${column} = ${sqlNumber(band.lo)}`;
  return `(${lo} AND ${column} <= ${sqlNumber(band.hi)})`;
}

export function filterSql(filter: NormalizedFilter): string {
  const column = sqlIdentifier(FIELDS[filter.index]!.name);
  if (filter.kind === 'string') return `${column} IN ${sqlStringList(filter.values)}`;
  return `(${filter.bands.map((b) => bandSql(column, b)).join(' OR ')})`;
}

/** `STATE = 'XX'` and every filter. */
export function audienceWhere(audience: Pick<Audience, 'state' | 'filters'>): string {
  return [`STATE = ${sqlString(audience.state)}`, ...audience.filters.map(filterSql)].join(' AND ');
}

/** contact's phone rule: a phone that is not empty and whose own DNC flag is empty (as query/listPrimitives.ts's callableTest). */
export const CALLABLE_SQL = "((PHONE != '' AND DNC = '') OR (PHONE2 != '' AND DNC2 = '') OR (PHONE3 != '' AND DNC3 = ''))";
/** contact's mail rule: DPV is Y and VACANT is not. */
export const DELIVERABLE_SQL = "(DPV = 'Y' AND VACANT != 'Y')";
