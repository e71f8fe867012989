// Tables of the short strings records repeat (digits, letters, years, DOBs). Taking them from a
// table instead of building them per record saves allocation, and the dataset writer's dictionary
// lookups get strings whose hash V8 has already computed: both matter at 30,000+ records a second.

const table = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i));

/** '0'...'9999' */
export const NUMBER_TEXT = table(30_000, (i) => String(i));
/** '0000'...'9999' */
export const DIGITS4 = table(10_000, (i) => String(i).padStart(4, '0'));
/** '00'...'99' */
export const DIGITS2 = table(100, (i) => String(i).padStart(2, '0'));
/** 'A'...'Z' */
export const LETTERS = table(26, (i) => String.fromCharCode(65 + i));

const DOB_FIRST_YEAR = 1900;
const DOB_TEXT = table(140 * 12, (i) => String(DOB_FIRST_YEAR + Math.floor(i / 12)) + DIGITS2[(i % 12) + 1]);

/** `YYYYMM` for a year from 1900 to 2039 and a month 1-12. */
export function yearMonthText(year: number, month: number): string {
  return DOB_TEXT[(year - DOB_FIRST_YEAR) * 12 + month - 1]!;
}
