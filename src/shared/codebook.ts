// The meanings of the coded fields' codes, as data: for each coded string field, every code the
// generator writes (src/core/generate/CODEBOOK.md, codeBook.ts, address.ts, scores.ts) with the
// short words an analyst would use, in the code's natural order (income bands from lowest to
// highest, generations from oldest to youngest), not by frequency. The data dictionary
// (docs/interface.md, "The data dictionary") serves these lists as `values`; breakdowns
// and pickers label and sort with codeLabel / compareCodes. A code the book does not know (a vendor
// file's) has no label here: callers show the bare code, marked unknown, and never drop it.
// Pure TypeScript: the renderer imports it.
import { FIELDS } from './fields';
import { STATES } from './states';

export interface CodeMeaning {
  readonly code: string;
  readonly label: string;
}
export type CodeList = ReadonlyArray<CodeMeaning>;

type Pairs = ReadonlyArray<readonly [code: string, label: string]>;

const list = (pairs: Pairs): CodeList => Object.freeze(pairs.map(([code, label]) => Object.freeze({ code, label })));
const letter = (i: number) => String.fromCharCode(65 + i);
const pad2 = (n: number) => String(n).padStart(2, '0');
const dollars = (n: number) => '$' + n.toLocaleString('en-US');

/** Bands A, B, C... from their upper bounds in dollars: "Under $15,000", "$15,000–$24,999", "$250,000 or more". */
function dollarBands(bounds: readonly number[]): CodeList {
  return list(
    [...bounds, Infinity].map((upper, i) => {
      const lower = i === 0 ? 0 : bounds[i - 1]!;
      const label =
        i === 0 ? `Under ${dollars(upper)}` : upper === Infinity ? `${dollars(lower)} or more` : `${dollars(lower)}–${dollars(upper - 1)}`;
      return [letter(i), label] as const;
    }),
  );
}

/** Letter bands of an ordered score: "Lowest (1 of 9)" ... "Highest (9 of 9)". */
function rankBands(n: number): CodeList {
  return list(
    Array.from({ length: n }, (_, i) => {
      const of = `${i + 1} of ${n}`;
      return [letter(i), i === 0 ? `Lowest (${of})` : i === n - 1 ? `Highest (${of})` : of] as const;
    }),
  );
}

/** Y or empty: a flag. */
const FLAG = list([
  ['Y', 'Yes'],
  ['', 'No'],
]);

// Household income (EHI A-L, EHI_V2 A-O) and market home value (A-S): upper bounds of the bands.
const EHI = dollarBands([15e3, 25e3, 35e3, 50e3, 75e3, 100e3, 125e3, 150e3, 175e3, 200e3, 250e3]);
const EHI_V2 = dollarBands([10e3, 15e3, 25e3, 35e3, 50e3, 75e3, 100e3, 125e3, 150e3, 175e3, 200e3, 250e3, 300e3, 400e3]);
const MRKTHOMEVAL = list([
  ...dollarBands([
    25e3, 50e3, 75e3, 100e3, 125e3, 150e3, 175e3, 200e3, 225e3, 250e3, 275e3, 300e3, 350e3, 400e3, 500e3, 750e3, 1e6, 2e6,
  ]).map((c) => [c.code, c.label] as const),
  ['', 'No value (renter)'],
]);

const DIRECTIONS = list([
  ['', 'None'],
  ['N', 'North'],
  ['S', 'South'],
  ['E', 'East'],
  ['W', 'West'],
  ['NE', 'Northeast'],
  ['NW', 'Northwest'],
  ['SE', 'Southeast'],
  ['SW', 'Southwest'],
]);

// Segments built from urbanity (by the ZIP's people per square mile), income quintile and life stage.
const URBANITY = ['Urban', 'Suburban', 'Town', 'Rural'];
const QUINTILE = ['lowest', 'lower-middle', 'middle', 'upper-middle', 'highest'];
const HH_LIFE_STAGE = ['young adults', 'families and middle-aged', 'seniors'];
const AGE_BANDS_4 = ['18–34', '35–49', '50–64', '65+'];
const AGE_BANDS_6 = ['18–24', '25–34', '35–44', '45–54', '55–64', '65+'];
const PERSON_STATUS = ['single', 'married', 'parent'];

const HHCLSTRDCD = list(
  URBANITY.flatMap((u, ui) =>
    QUINTILE.flatMap((q, qi) => HH_LIFE_STAGE.map((l, li) => [pad2(1 + ui * 15 + qi * 3 + li), `${u}, ${q} income, ${l}`] as const)),
  ),
);
const NEIGHBORHOOD_CLSTRDCD = list(
  URBANITY.flatMap((u, ui) => QUINTILE.map((q, qi) => [pad2(1 + ui * 5 + qi), `${u} area, ${q} income`] as const)),
);
const LIFESTG_CLSTRD = list(
  AGE_BANDS_4.flatMap((a, ai) => PERSON_STATUS.map((s, si) => [pad2(1 + ai * 3 + si), `Age ${a}, ${s}`] as const)),
);
const MESSAGING_CLSTRDCD = list(
  AGE_BANDS_6.flatMap((a, ai) => [
    [pad2(1 + ai * 2), `Age ${a}, no bachelor's degree`] as const,
    [pad2(2 + ai * 2), `Age ${a}, bachelor's degree or higher`] as const,
  ]),
);

const GENERATIONS: Pairs = [
  ['Silent Generation', 'born by 1945'],
  ['Baby Boomers', '1946–1964'],
  ['Generation X', '1965–1980'],
  ['Millennials', '1981–1996'],
  ['Generation Z', '1997 on'],
];

// Standard Occupational Classification (2018) major groups, behind OCCUPATIONCD.
const SOC_MAJOR_GROUPS: Pairs = [
  ['11', 'Management'],
  ['13', 'Business and financial operations'],
  ['15', 'Computer and mathematical'],
  ['17', 'Architecture and engineering'],
  ['19', 'Life, physical and social science'],
  ['21', 'Community and social service'],
  ['23', 'Legal'],
  ['25', 'Education and library'],
  ['27', 'Arts, design, entertainment, sports and media'],
  ['29', 'Healthcare practitioners and technical'],
  ['31', 'Healthcare support'],
  ['33', 'Protective service'],
  ['35', 'Food preparation and serving'],
  ['37', 'Building and grounds cleaning and maintenance'],
  ['39', 'Personal care and service'],
  ['41', 'Sales and related'],
  ['43', 'Office and administrative support'],
  ['45', 'Farming, fishing and forestry'],
  ['47', 'Construction and extraction'],
  ['49', 'Installation, maintenance and repair'],
  ['51', 'Production'],
  ['53', 'Transportation and material moving'],
  ['55', 'Military'],
];

// FIPS state codes of the 50 states and DC.
const STATE_FIPS: Pairs = [
  ['01', 'AL'],
  ['02', 'AK'],
  ['04', 'AZ'],
  ['05', 'AR'],
  ['06', 'CA'],
  ['08', 'CO'],
  ['09', 'CT'],
  ['10', 'DE'],
  ['11', 'DC'],
  ['12', 'FL'],
  ['13', 'GA'],
  ['15', 'HI'],
  ['16', 'ID'],
  ['17', 'IL'],
  ['18', 'IN'],
  ['19', 'IA'],
  ['20', 'KS'],
  ['21', 'KY'],
  ['22', 'LA'],
  ['23', 'ME'],
  ['24', 'MD'],
  ['25', 'MA'],
  ['26', 'MI'],
  ['27', 'MN'],
  ['28', 'MS'],
  ['29', 'MO'],
  ['30', 'MT'],
  ['31', 'NE'],
  ['32', 'NV'],
  ['33', 'NH'],
  ['34', 'NJ'],
  ['35', 'NM'],
  ['36', 'NY'],
  ['37', 'NC'],
  ['38', 'ND'],
  ['39', 'OH'],
  ['40', 'OK'],
  ['41', 'OR'],
  ['42', 'PA'],
  ['44', 'RI'],
  ['45', 'SC'],
  ['46', 'SD'],
  ['47', 'TN'],
  ['48', 'TX'],
  ['49', 'UT'],
  ['50', 'VT'],
  ['51', 'VA'],
  ['53', 'WA'],
  ['54', 'WV'],
  ['55', 'WI'],
  ['56', 'WY'],
];

/** Fields whose codes are Y or empty. */
const FLAG_FIELDS = [
  'DNC',
  'DNC2',
  'DNC3',
  'MOBHOMECD',
  'POOL',
  'FIREPLCD',
  'SPANISHSPCD',
  'SOHOCD',
  'CREDITCARD',
  'CHARITYDNR',
  'CHILD',
  'CHILDAGECD_6',
  'CHILDAGECD_6_10',
  'CHILDAGECD_11_15',
  'CHILDAGECD_16_17',
  'SGLPARENT',
  'VETERANCD',
  // Every CT_* behaviour flag (media use, social networks, streaming, smartphone, politics, shopping
  // and technology segments, donations): Y or empty, one-of groups included.
  ...FIELDS.filter((f) => f.group === 'behaviour_flag').map((f) => f.name),
];

const BOOK: Record<string, CodeList> = {
  // Identity, address and geography
  GENDER: list([
    ['F', 'Female'],
    ['M', 'Male'],
  ]),
  STATE: list(Object.entries(STATES).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
  STATECD: list(STATE_FIPS.map(([fips, state]) => [fips, STATES[state]!] as const)),
  PREDIR: DIRECTIONS,
  POSTDIR: DIRECTIONS,
  STRTYPE: list([
    ['ST', 'Street'],
    ['DR', 'Drive'],
    ['AVE', 'Avenue'],
    ['RD', 'Road'],
    ['LN', 'Lane'],
    ['CT', 'Court'],
    ['WAY', 'Way'],
    ['BLVD', 'Boulevard'],
    ['PL', 'Place'],
    ['CIR', 'Circle'],
    ['TER', 'Terrace'],
    ['TRL', 'Trail'],
    ['LOOP', 'Loop'],
    ['PKWY', 'Parkway'],
    ['HWY', 'Highway'],
  ]),
  APTTYPE: list([
    ['', 'None'],
    ['APT', 'Apartment'],
    ['UNIT', 'Unit'],
    ['STE', 'Suite'],
    ['#', 'Number (#)'],
    ['LOT', 'Lot (mobile home)'],
  ]),
  Z4TYPE: list([
    ['S', 'Street'],
    ['H', 'High-rise'],
  ]),
  CRTE: list([
    ...Array.from({ length: 80 }, (_, i) => [`C${String(i + 1).padStart(3, '0')}`, `City route ${i + 1}`] as const),
    ...Array.from({ length: 20 }, (_, i) => [`R${String(i + 1).padStart(3, '0')}`, `Rural route ${i + 1}`] as const),
  ]),
  DPV: list([
    ['Y', 'Confirmed'],
    ['D', 'Confirmed, primary number only'],
    ['S', 'Confirmed, unit number missing'],
  ]),
  VACANT: list([
    ['N', 'Not vacant'],
    ['Y', 'Vacant'],
  ]),
  CNTYSIZECD: list([
    ['A', 'Metro area of 2.5 million+'],
    ['B', 'County of 85,000+'],
    ['C', 'County of 20,000–84,999'],
    ['D', 'County under 20,000'],
  ]),
  GEOLEVEL: list([
    ['B', 'Block'],
    ['T', 'Tract'],
    ['Z', 'ZIP code'],
  ]),

  // Household
  HOMEOWNERC: list([
    ['H', 'Homeowner'],
    ['R', 'Renter'],
  ]),
  DWELLTYPE: list([
    ['S', 'Single-family'],
    ['M', 'Multi-unit'],
    ['T', 'Mobile home'],
  ]),
  EHI,
  EHI_V2,
  WEALTHSCR: rankBands(9),
  WEALTHSCR_V2: rankBands(12),
  MRKTHOMEVAL,
  ETHNICITYCD: list([
    ['W', 'White'],
    ['H', 'Hispanic'],
    ['B', 'Black'],
    ['A', 'Asian'],
    ['N', 'Native American'],
    ['P', 'Pacific Islander'],
    ['O', 'Other or multiracial'],
  ]),
  LANGUAGECD: list([
    ['EN', 'English'],
    ['ES', 'Spanish'],
    ['ZH', 'Chinese'],
    ['TL', 'Tagalog'],
    ['VI', 'Vietnamese'],
    ['HI', 'Hindi'],
    ['KO', 'Korean'],
    ['JA', 'Japanese'],
    ['FR', 'French'],
    ['DE', 'German'],
    ['IT', 'Italian'],
    ['PL', 'Polish'],
    ['RU', 'Russian'],
    ['AR', 'Arabic'],
    ['SM', 'Samoan'],
  ]),
  RELIGIONCD: list([
    ['P', 'Protestant'],
    ['C', 'Catholic'],
    ['J', 'Jewish'],
    ['M', 'Muslim'],
    ['B', 'Buddhist'],
    ['L', 'Latter-day Saints'],
    ['O', 'Other'],
    ['N', 'None'],
    ['', 'Unknown'],
  ]),
  CHILDNBRCD: list([
    ['', 'None'],
    ['1', '1 child'],
    ['2', '2 children'],
    ['3', '3 children'],
    ['4', '4 or more children'],
  ]),
  HHNBRSR: list([['0', 'None'], ['1', '1 adult aged 65+'], ...[2, 3, 4, 5, 6].map((n) => [String(n), `${n} adults aged 65+`] as const)]),
  HHCLSTRDCD,
  NEIGHBORHOOD_CLSTRDCD,
  FMCLSTRDCD: list([
    ['01', 'Single, under 35'],
    ['02', 'Single, 35–64'],
    ['03', 'Single, 65+'],
    ['04', 'Couple, under 35'],
    ['05', 'Couple with children'],
    ['06', 'Couple, 35–64'],
    ['07', 'Couple, 65+'],
    ['08', 'Single parent'],
    ['09', 'Family with grown children or parents'],
    ['10', 'Other adults sharing'],
  ]),

  // Person
  MARRIEDCD: list([
    ['M', 'Married'],
    ['S', 'Single'],
  ]),
  EDUCATIONCD: list([
    ['1', 'High school or less'],
    ['2', 'Some college'],
    ['3', "Bachelor's degree"],
    ['4', 'Graduate degree'],
  ]),
  OCCUPATIONCD: list([
    ['P', 'Professional/technical'],
    ['M', 'Management'],
    ['S', 'Sales/service'],
    ['C', 'Clerical'],
    ['B', 'Blue collar'],
    ['H', 'Homemaker'],
    ['T', 'Student'],
    ['R', 'Retired'],
  ]),
  OCCUPATIONCD_V2: list([...SOC_MAJOR_GROUPS, ['', 'None (homemaker, student or retired)']]),
  GENERATION_CLSTRDCD: list(GENERATIONS.map(([name, born], i) => [pad2(i + 1), `${name} (${born})`] as const)),
  GENERATION_GRPCD: list(['S', 'B', 'X', 'M', 'Z'].map((code, i) => [code, `${GENERATIONS[i]![0]} (${GENERATIONS[i]![1]})`] as const)),
  LIFESTG_CLSTRD,
  LIFESTG_GRPCD: list(AGE_BANDS_4.map((a, i) => [letter(i), `Age ${a}`] as const)),
  MESSAGING_CLSTRDCD,
  DIGITALCLSTRDCD: list(
    Array.from(
      { length: 10 },
      (_, i) => [pad2(i + 1), i === 0 ? 'Level 1 (least digital)' : i === 9 ? 'Level 10 (most digital)' : `Level ${i + 1}`] as const,
    ),
  ),
};
for (const name of FLAG_FIELDS) BOOK[name] = FLAG;

/** Every coded field's codes and their meanings, in natural order, keyed by field name. */
export const CODEBOOK: Readonly<Record<string, CodeList>> = Object.freeze(BOOK);

interface Known {
  readonly label: string;
  readonly rank: number;
}
const INDEX = new Map<string, ReadonlyMap<string, Known>>(
  Object.entries(CODEBOOK).map(([field, codes]) => [field, new Map(codes.map((c, rank) => [c.code, { label: c.label, rank }]))]),
);

const codesOf = (field: string) => INDEX.get(field) ?? INDEX.get(field.toUpperCase());

/** The meaning of a field's code, or undefined when the book does not know it (show the bare code, marked unknown). */
export function codeLabel(field: string, code: string | number): string | undefined {
  return codesOf(field)?.get(String(code))?.label;
}

/** The code's position in its field's natural order; codes the book does not know come after every known one. */
export function codeRank(field: string, code: string | number): number {
  const codes = codesOf(field);
  return codes?.get(String(code))?.rank ?? codes?.size ?? 0;
}

const NUMERIC = /^-?\d+(\.\d+)?$/;

/** Unknown codes among themselves: numbers by value, otherwise by code (code units, locale-free). */
function byCode(a: string | number, b: string | number): number {
  const x = String(a);
  const y = String(b);
  if (NUMERIC.test(x) && NUMERIC.test(y)) {
    const d = Number(x) - Number(y);
    if (d !== 0) return d;
  }
  return x < y ? -1 : x > y ? 1 : 0;
}

/** A comparator sorting a field's values in natural order: known codes by the book, then the unknown by code. */
export function compareCodes(field: string): (a: string | number, b: string | number) => number {
  return (a, b) => codeRank(field, a) - codeRank(field, b) || byCode(a, b);
}
