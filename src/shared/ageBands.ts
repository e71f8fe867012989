// AGE's bands, defined once for the core's breakdown and the renderer's bars and checkboxes. Every
// label is also a valid AGE filter value (LO-HI or N+), so a band can become a filter as it reads.

export interface AgeBand {
  readonly label: string;
  /** Inclusive bounds; the last band is open-ended (hi is Infinity). */
  readonly lo: number;
  readonly hi: number;
}

/** Not a standard band: shown only when a dataset holds someone that young. */
export const UNDER_18_BAND: AgeBand = { label: '0-17', lo: 0, hi: 17 };

/** The bands always shown, even empty (an empty bar says something). */
export const STANDARD_AGE_BANDS: readonly AgeBand[] = [
  { label: '18-24', lo: 18, hi: 24 },
  { label: '25-34', lo: 25, hi: 34 },
  { label: '35-44', lo: 35, hi: 44 },
  { label: '45-54', lo: 45, hi: 54 },
  { label: '55-64', lo: 55, hi: 64 },
  { label: '65+', lo: 65, hi: Infinity },
];

/** Every band in age order: the under-18 band first, then the standard ones. */
export const AGE_BANDS: readonly AgeBand[] = [UNDER_18_BAND, ...STANDARD_AGE_BANDS];

/** The band an age falls in; undefined for anything that is not an age of some band. */
export function ageBandOf(age: number): AgeBand | undefined {
  return AGE_BANDS.find((b) => age >= b.lo && age <= b.hi);
}

export interface AgeBandCounts {
  /** In band order: the standard bands always, the under-18 band only when someone is in it. */
  bands: Array<{ value: string; count: number }>;
  /** Counts of values in no band (an empty AGE, a stray value). */
  other: number;
}

/** Groups per-value AGE counts into bands. A value may be a raw age or already a band's label. */
export function countAgeBands(values: Iterable<{ value: string | number; count: number }>): AgeBandCounts {
  const counts = new Map<AgeBand, number>(AGE_BANDS.map((b) => [b, 0]));
  let other = 0;
  for (const { value, count } of values) {
    // Labels are never numbers ('25-34', '65+'), so a label and an age cannot be confused; '' is no age.
    const band = AGE_BANDS.find((b) => b.label === String(value)) ?? (value === '' ? undefined : ageBandOf(Number(value)));
    if (band) counts.set(band, counts.get(band)! + count);
    else other += count;
  }
  const bands = AGE_BANDS.filter((b) => b !== UNDER_18_BAND || counts.get(b)! > 0).map((b) => ({ value: b.label, count: counts.get(b)! }));
  return { bands, other };
}
