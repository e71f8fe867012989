// A stored record (the JSON array text of its values in catalog order) as the CSV line ClickHouse
// reads into the dataset's table (schema.ts): strings quoted, integers as they are, coordinates as
// the decimal text of their 64 bits. Runs once per record of a load, so the common case (no escape
// in the record) is text surgery, not JSON.parse.
import { FIELDS, fieldIndex } from '../../shared/fields';
import { bitsOfFloat } from './values';

const LAT = fieldIndex('LATITUDE');
const LON = fieldIndex('LONGITUDE');
if (LON !== LAT + 1 || FIELDS.some((f, i) => f.type === 'number' && i !== LAT && i !== LON))
  throw new Error('csvLine expects LATITUDE and LONGITUDE side by side and no other decimal field.');

function csvString(value: string): string {
  return `"${value.replace(/"/g, '""')}"`;
}

/** The slow path: any record, through JSON.parse. */
function parsedLine(text: string): string {
  const values = JSON.parse(text) as Array<string | number>;
  if (!Array.isArray(values) || values.length !== FIELDS.length) throw new Error('A record does not have the catalog’s fields.');
  return values
    .map((v, i) => (FIELDS[i]!.type === 'number' ? bitsOfFloat(Number(v)) : typeof v === 'string' ? csvString(v) : String(v)))
    .join(',');
}

/** The CSV line (with its newline) of one stored record. */
export function storedRecordToClickHouseCsv(text: string): string {
  // Without a backslash, no string holds a quote or a control character: a JSON string is already
  // a quoted CSV field, and the array's inside is the CSV line but for the coordinates.
  if (text.includes('\\')) return parsedLine(text) + '\n';
  let i = 1;
  let latStart = -1;
  for (let k = 0; k <= LON; k++) {
    if (k === LAT) latStart = i;
    const end = text.charCodeAt(i) === 34 ? text.indexOf('"', i + 1) + 1 : text.indexOf(',', i);
    if (end <= 0) return parsedLine(text) + '\n';
    if (k === LON) {
      const [lat, lon] = text.slice(latStart, end).split(',');
      return `${text.slice(1, latStart)}${bitsOfFloat(Number(lat))},${bitsOfFloat(Number(lon))}${text.slice(end, -1)}\n`;
    }
    i = end + 1;
  }
  return parsedLine(text) + '\n';
}
