// An audience's state and filters as a ClickHouse WHERE clause, with the embedded engine's meaning
// (src/core/query/predicates.ts, decisions.md): AND across filters, OR within one; a string filter
// matches values exactly as stored (the request's values arrive upper-cased and "" asks for an
// empty field), an integer filter matches inclusive bands (AGE's "25-29", "65+"), merged first so
// that no request's number of values makes a query too big for the server. String values go through
// the query's binder (sqlValues.ts): query parameters where the server has them, else literals.
import type { IntBand, NormalizedFilter } from '../../shared/audienceRequest';
import { FIELDS } from '../../shared/fields';
import type { Audience } from '../audience/contract/engine';
import { sqlIdentifier, sqlNumber } from './sqlLiteral';
import { literalValues, type SqlValues } from './sqlValues';

/** Ranges written one by one (`col >= a AND col <= b`); past this, as arrays or as values of a set. */
const RANGES_INLINE = 8;
/** Past this many values in all, many ranges are tested against two arrays rather than spelled out as a set. */
const RANGE_VALUES_AS_SET = 100_000;

/**
 * The bands sorted and merged wherever they overlap or touch (integers: 25-29 and 30-34 are 25-34), so
 * a request of a thousand bands of AGE, a field of about a hundred values, becomes a few ranges: the
 * same people, and a query whose size no longer grows with the request (a long OR of bands made the
 * server refuse it, "AST is too big").
 */
export function mergedBands(bands: readonly IntBand[]): IntBand[] {
  const sorted = [...bands].sort((a, b) => a.lo - b.lo || a.hi - b.hi);
  const merged: IntBand[] = [];
  for (const band of sorted) {
    const last = merged[merged.length - 1];
    if (last && band.lo <= last.hi + 1) last.hi = Math.max(last.hi, band.hi);
    else merged.push({ ...band });
  }
  return merged;
}

/**
 * An integer filter: single values as one IN set (a tuple of literals, which the server parses as one
 * constant), a trailing open band (`65+`) as `>=`, and ranges written out when few; many ranges become
 * their values in the set when they hold few values, else two arrays of ends the value is tested against.
 */
function integerFilterSql(column: string, bands: readonly IntBand[]): string {
  const merged = mergedBands(bands);
  const points: number[] = [];
  const ranges: IntBand[] = [];
  const parts: string[] = [];
  for (const band of merged) {
    if (band.hi === band.lo) points.push(band.lo);
    else if (band.hi === Infinity) parts.push(`${column} >= ${sqlNumber(band.lo)}`);
    else ranges.push(band);
  }
  const width = ranges.reduce((n, r) => n + (r.hi - r.lo + 1), 0);
  if (ranges.length > RANGES_INLINE && width <= RANGE_VALUES_AS_SET) {
    for (const r of ranges) for (let v = r.lo; v <= r.hi; v++) points.push(v);
    ranges.length = 0;
    points.sort((a, b) => a - b);
  }
  if (points.length === 1) parts.unshift(`${column} = ${sqlNumber(points[0]!)}`);
  else if (points.length > 1) parts.unshift(`${column} IN (${points.map(sqlNumber).join(',')})`);
  if (ranges.length > RANGES_INLINE) {
    const los = `[${ranges.map((r) => sqlNumber(r.lo)).join(',')}]`;
    const his = `[${ranges.map((r) => sqlNumber(r.hi)).join(',')}]`;
    // The value goes into the lambda as an array of its copies: 18.16 cannot resolve a column a lambda
    // captures in a WHERE with other conditions ("Unknown identifier").
    const copies = `arrayResize([${column}], ${ranges.length}, ${column})`;
    parts.push(`arrayExists((x, lo, hi) -> x >= lo AND x <= hi, ${copies}, ${los}, ${his})`);
  } else for (const r of ranges) parts.push(`(${column} >= ${sqlNumber(r.lo)} AND ${column} <= ${sqlNumber(r.hi)})`);
  return `(${parts.join(' OR ')})`;
}

export function filterSql(filter: NormalizedFilter, values: SqlValues = literalValues()): string {
  const column = sqlIdentifier(FIELDS[filter.index]!.name);
  // One value is an equality: 18.16 tests a LowCardinality column against a set much more slowly than
  // against one value (docs/clickhouse.md, "Figures"). A longer list is one set: a tuple of literals (one
  // constant for the server's parser, however long) or one parameter.
  if (filter.kind === 'string')
    return filter.values.length === 1
      ? `${column} = ${values.string(filter.values[0]!)}`
      : `${column} IN ${values.stringSet(filter.values)}`;
  return integerFilterSql(column, filter.bands);
}

/** `STATE = 'XX'` and every filter, the strings bound by the query's binder. */
export function audienceWhere(audience: Pick<Audience, 'state' | 'filters'>, values: SqlValues = literalValues()): string {
  return [`STATE = ${values.string(audience.state)}`, ...audience.filters.map((f) => filterSql(f, values))].join(' AND ');
}

/** contact's phone rule: a phone that is not empty and whose own DNC flag is empty (as query/listPrimitives.ts's callableTest). */
export const CALLABLE_SQL = "((PHONE != '' AND DNC = '') OR (PHONE2 != '' AND DNC2 = '') OR (PHONE3 != '' AND DNC3 = ''))";
/** contact's mail rule: DPV is Y and VACANT is not. */
export const DELIVERABLE_SQL = "(DPV = 'Y' AND VACANT != 'Y')";

/**
 * Counts by value of several columns (quoted) in one scan: each matching row gives one (field's place, value)
 * pair a field, grouped together. toString keeps each type's text as the server writes the column
 * itself, so the engine reads the values back as it reads a GROUP BY of the column.
 */
export function manyFieldCountsSql(table: string, columns: readonly string[], where: string): string {
  const pairs = columns.map((column, f) => `(toUInt16(${f}), toString(${column}))`).join(', ');
  return (
    `SELECT tupleElement(fv, 1), tupleElement(fv, 2), count() FROM ` +
    `(SELECT arrayJoin([${pairs}]) AS fv FROM ${table} WHERE ${where}) ` +
    `GROUP BY tupleElement(fv, 1), tupleElement(fv, 2)`
  );
}
