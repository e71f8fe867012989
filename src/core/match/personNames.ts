// When a customer's row and a record name the same person: match and append never hands a row
// another person's data, so a row found by its address or phone is matched only when its name
// agrees with the record's (docs/match.md, "Name agreement"). Both sides are written the same way
// first: upper-case, accents dropped, only letters kept ("O'Neil" is ONEIL, "Mary-Jane" MARYJANE).

/** A name as it is compared: upper-case ASCII letters only; '' when none is left. */
export function normalizeName(raw: string): string {
  return raw
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toUpperCase()
    .replace(/[^A-Z]/g, '');
}

export interface PersonName {
  first: string;
  last: string;
}

// Words a full name carries that are not the first or last name.
const TITLES = new Set(['MR', 'MRS', 'MS', 'MISS', 'DR', 'PROF', 'REV']);
const SUFFIXES = new Set(['JR', 'SR', 'II', 'III', 'IV', 'V', 'MD', 'PHD', 'DDS', 'ESQ']);

/**
 * A full name's first and last names: "Last, First Middle" when it has a comma, else "First
 * [Middle…] Last"; titles (MR, DR …) and suffixes (JR, III …) are dropped. Empty parts when it has none.
 */
export function splitFullName(raw: string): PersonName {
  const comma = raw.indexOf(',');
  const words = (text: string): string[] =>
    text
      .split(/[\s.]+/)
      .map(normalizeName)
      .filter((w) => w !== '' && !TITLES.has(w) && !SUFFIXES.has(w));
  if (comma >= 0) {
    const last = words(raw.slice(0, comma));
    const rest = words(raw.slice(comma + 1));
    return { first: rest[0] ?? '', last: last.join('') };
  }
  const all = words(raw);
  if (all.length < 2) return { first: '', last: all[0] ?? '' };
  return { first: all[0]!, last: all.at(-1)! };
}

/** How well two names agree: 2 same first name, 1 an initial of it, 0 not the same person. */
export function nameAgreement(row: PersonName, record: PersonName): 0 | 1 | 2 {
  if (row.last === '' || row.first === '' || row.last !== record.last || record.first === '') return 0;
  if (row.first === record.first) return 2;
  const initial = row.first.length === 1 || record.first.length === 1;
  return initial && row.first[0] === record.first[0] ? 1 : 0;
}
