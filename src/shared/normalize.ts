// How a phone, a PID and an address are written before they are compared: the same functions
// read a suppression list's rows and the dataset's records, so "(907) 481-5345", "+1 907 481 5345"
// and the record's 9074815345 are one phone, and "19578 NE Hill Road" at 99516-1234 is the record's
// "19578 NE HILL RD" at 99516. docs/list-controls.md, "Suppression lists", lists the rules.

/**
 * The version of these rules. Dataset files store each record's normalised values hashed (list keys,
 * src/core/dataset/format/listKeys.ts) under the version they were written with, and use them only while it
 * is this one: a rule changed without a new version would make lists miss people in older files.
 * test/lists/normalize.test.ts pins the rules' output to this number.
 */
export const NORMALIZATION_RULES = 1;

const TEN_DIGITS = /^[0-9]{10}$/;

/** A phone: 10 digits (NANP); a leading country code 1 and an extension are dropped. Else null. */
export function normalizePhone(raw: string | number): string | null {
  // Most stored phones are written so already: the rules below would give them back unchanged.
  if (typeof raw === 'string' && TEN_DIGITS.test(raw)) return raw;
  let text = String(raw).trim();
  // "907-481-5345 x12", "ext. 12": the extension is not part of the number.
  text = text.replace(/\s*(?:x|ext\.?|extension)\s*\d{1,6}\s*$/i, '');
  let digits = text.replace(/\D/g, '');
  if (digits.length === 11 && digits.startsWith('1')) digits = digits.slice(1);
  return digits.length === 10 ? digits : null;
}

const PID = /^[0-9A-Fa-f]{32}$/;

/** A PID: 32 hexadecimal characters, upper-cased. Else null. */
export function normalizePid(raw: string | number): string | null {
  const text = String(raw).trim();
  return PID.test(text) ? text.toUpperCase() : null;
}

/**
 * A ZIP's first five digits. ZIP+4 is cut ("99516-1234", "995161234"); a ZIP whose leading zeros a
 * spreadsheet dropped (2134 for 02134, 21341234 for 02134-1234) gets them back. Else null.
 */
export function normalizeZip(raw: string | number): string | null {
  const digits = String(raw).replace(/\D/g, '');
  if (digits.length >= 3 && digits.length <= 5) return digits.padStart(5, '0');
  if (digits.length >= 8 && digits.length <= 9) return digits.padStart(9, '0').slice(0, 5);
  return null;
}

// USPS Publication 28's standard abbreviations for the words people most often write out: street
// types (C1), unit designators (C2) and directions. Both sides are normalised, so a word missing
// here only means that spelled-out and abbreviated forms of it do not meet.
export const ABBREVIATIONS: Readonly<Record<string, string>> = {
  // street types
  ALLEY: 'ALY',
  AVENUE: 'AVE',
  AV: 'AVE',
  BOULEVARD: 'BLVD',
  BEND: 'BND',
  BYPASS: 'BYP',
  CAUSEWAY: 'CSWY',
  CENTER: 'CTR',
  CIRCLE: 'CIR',
  COURT: 'CT',
  COVE: 'CV',
  CREEK: 'CRK',
  CRESCENT: 'CRES',
  CROSSING: 'XING',
  DRIVE: 'DR',
  EXPRESSWAY: 'EXPY',
  EXTENSION: 'EXT',
  FREEWAY: 'FWY',
  GARDENS: 'GDNS',
  GROVE: 'GRV',
  HEIGHTS: 'HTS',
  HIGHWAY: 'HWY',
  HILL: 'HL',
  HOLLOW: 'HOLW',
  JUNCTION: 'JCT',
  LAKE: 'LK',
  LANDING: 'LNDG',
  LANE: 'LN',
  MANOR: 'MNR',
  MEADOWS: 'MDWS',
  MOUNTAIN: 'MTN',
  ORCHARD: 'ORCH',
  PARKWAY: 'PKWY',
  PLACE: 'PL',
  PLAZA: 'PLZ',
  POINT: 'PT',
  RIDGE: 'RDG',
  ROAD: 'RD',
  ROUTE: 'RTE',
  SQUARE: 'SQ',
  STREET: 'ST',
  STR: 'ST',
  TERRACE: 'TER',
  TRAIL: 'TRL',
  TURNPIKE: 'TPKE',
  VALLEY: 'VLY',
  VIEW: 'VW',
  VILLAGE: 'VLG',
  // unit designators
  APARTMENT: 'APT',
  BUILDING: 'BLDG',
  DEPARTMENT: 'DEPT',
  FLOOR: 'FL',
  ROOM: 'RM',
  SUITE: 'STE',
  // directions
  NORTH: 'N',
  SOUTH: 'S',
  EAST: 'E',
  WEST: 'W',
  NORTHEAST: 'NE',
  NORTHWEST: 'NW',
  SOUTHEAST: 'SE',
  SOUTHWEST: 'SW',
};

/** Words after which a `#` is only the number sign of the unit ("APT # 4" is "APT 4"). */
export const UNIT_WORDS = new Set(['APT', 'STE', 'UNIT', 'BLDG', 'FL', 'RM', 'DEPT', 'LOT', 'SPC', 'TRLR']);

/**
 * An address line, upper-cased, without punctuation, single-spaced, with USPS abbreviations; a `#`
 * unit ("# 31", "#31") is written APT. Null when nothing is left.
 */
export function normalizeAddressLine(raw: string): string | null {
  // Most stored lines are written so already (upper case, single-spaced, no punctuation, no
  // abbreviation left to make): the rules below would give them back unchanged. An import works
  // out every record's list keys, so this saves a pass of four regular expressions a record.
  if (CLEAN_LINE.test(raw) && raw.split(' ').every((word) => ABBREVIATIONS[word] === undefined)) return raw;
  return normalizeAnyAddressLine(raw);
}

/** A line the rules leave as it is, unless a word of it has an abbreviation. */
const CLEAN_LINE = /^[A-Z0-9]+(?: [A-Z0-9]+)*$/;

/** normalizeAddressLine() by its rules alone, for any line (tests hold the quick way to it). */
export function normalizeAnyAddressLine(raw: string): string | null {
  const text = raw
    .toUpperCase()
    // "N.", "O'NEIL": dots and apostrophes go without leaving a gap; other punctuation separates words.
    .replace(/[.'’]/g, '')
    .replace(/#/g, ' # ')
    .replace(/[^A-Z0-9#]+/g, ' ')
    .trim();
  if (text === '') return null;
  const out: string[] = [];
  for (const word of text.split(' ')) {
    if (word === '#') {
      if (!UNIT_WORDS.has(out.at(-1) ?? '')) out.push('APT');
      continue;
    }
    out.push(ABBREVIATIONS[word] ?? word);
  }
  return out.length > 0 ? out.join(' ') : null;
}

/** An address: its normalised line and ZIP as one value, `LINE|ZIP`; null without either. */
export function normalizeAddress(line: string | number, zip: string | number): string | null {
  const l = normalizeAddressLine(String(line));
  const z = normalizeZip(zip);
  return l !== null && z !== null ? `${l}|${z}` : null;
}
