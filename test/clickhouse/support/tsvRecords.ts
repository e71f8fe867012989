// Records for the TabSeparated tests: every string a record can hold (tabs, newlines, backslashes,
// NULs, quotes, any unicode), and strings with nothing to escape (the fast path).
import fc from 'fast-check';
import { FIELDS } from '../../../src/shared/fields';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const HOSTILE = ['\t', '\n', '\r', '\\', '\\t', '\0', '"', "'", ',', '","', '\b', '\f', '\x7f', '😀', 'é', '\u2028', ']', '['];

export const hostileString = fc
  .array(
    fc.oneof(fc.constantFrom(...HOSTILE), fc.string({ unit: 'grapheme', maxLength: 6 }), fc.string({ unit: 'binary', maxLength: 6 })),
    {
      maxLength: 6,
    },
  )
  .map((parts) => parts.join(''))
  .filter((s) => !LONE_SURROGATE.test(s));
export const hexId = fc.uuid().map((u) => u.replace(/-/g, ''));
/** Strings with nothing JSON escapes, so the whole record takes the fast path. */
export const plainString = fc
  .string({ maxLength: 12 })
  .map((s) => [...s].map((c) => (c === '\\' || c === '"' || c < ' ' ? 'x' : c)).join(''));

export function record(strings: fc.Arbitrary<string>, pid: fc.Arbitrary<string>): fc.Arbitrary<Array<string | number>> {
  return fc
    .tuple(
      pid,
      fc.array(strings, { minLength: FIELDS.length, maxLength: FIELDS.length }),
      fc.array(fc.integer({ min: -1e9, max: 1e9 }), { minLength: FIELDS.length, maxLength: FIELDS.length }),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
    )
    .map(([id, texts, ints, lat, lon]) =>
      FIELDS.map((f, i) => {
        if (f.name === 'PID') return id;
        if (f.name === 'STATE') return 'CA';
        if (f.type === 'number') return f.name === 'LATITUDE' ? lat : lon;
        return f.type === 'integer' ? ints[i]! : texts[i]!;
      }),
    );
}
