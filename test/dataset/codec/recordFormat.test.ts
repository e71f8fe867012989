// The stored-text renderers must say exactly what the parse-then-render path says, for every kind
// of value: plain, empty, quotes, commas, line breaks, backslashes, non-ASCII, numbers.
import { describe, expect, it } from 'vitest';
import { FIELDS } from '../../../src/shared/fields';
import { generateRecords } from '../../../src/core/generate';
import {
  parseStoredPrefix,
  parseStoredValues,
  storedRecordToCsvLine,
  storedRecordToJson,
  storedRecordsToCsvBytes,
  storedRecordsToJsonBytes,
  storedRecordsToJsonLinesBytes,
  type RecordValues,
} from '../../../src/core/dataset/codec/recordFormat';
import { recordToCsvLine, recordToJson } from '../../support/recordReference';

const tricky = [
  '',
  'PLAIN',
  'A,B',
  'SAY "HI"',
  'LINE\nBREAK',
  'CR\rLF\r\n',
  'BACK\\SLASH',
  '\\"',
  'ÑANDÚ 東京',
  '\u0001CTRL',
  ',',
  '"',
  ' LEADING',
];

describe('rendering a stored record without parsing it', () => {
  it('matches recordToCsvLine and recordToJson for generated records', () => {
    for (const values of generateRecords(300, 11)) {
      const text = JSON.stringify(values);
      expect(storedRecordToCsvLine(text)).toBe(recordToCsvLine(values));
      expect(storedRecordToJson(text)).toBe(recordToJson(values));
      expect(parseStoredPrefix(text, 20)).toEqual(values.slice(0, 20));
    }
    const all = [...generateRecords(300, 11)];
    const texts = all.map((values) => JSON.stringify(values));
    expect(storedRecordsToCsvBytes(texts).toString('utf8')).toBe(all.map((r) => recordToCsvLine(r) + '\r\n').join(''));
    expect(storedRecordsToJsonLinesBytes(texts).toString('utf8')).toBe(all.map((r) => recordToJson(r) + '\n').join(''));
    expect(storedRecordsToCsvBytes([]).length).toBe(0);
  });

  it('matches them for every awkward string and number in every position', () => {
    const base = [...generateRecords(1, 3)][0]!;
    FIELDS.forEach((f, i) => {
      const variants: Array<string | number> = f.type === 'string' ? tricky : [0, 7, 123456789, -3, 34.056789, -118.25, 1e21];
      for (const v of variants) {
        const values = [...base] as Array<string | number>;
        values[i] = v;
        const text = JSON.stringify(values as RecordValues);
        expect(storedRecordToCsvLine(text), `${f.name} ${JSON.stringify(v)}`).toBe(recordToCsvLine(values));
        expect(storedRecordToJson(text), `${f.name} ${JSON.stringify(v)}`).toBe(recordToJson(values));
        expect(storedRecordsToJsonBytes('[', [Buffer.from(text)], ']').toString('utf8'), `${f.name} ${JSON.stringify(v)}`).toBe(
          `[${recordToJson(values)}]`,
        );
        // The export's batch renderers, with a plain record before and after (their bytes must not bleed).
        const plain = JSON.stringify(base);
        expect(storedRecordsToCsvBytes([plain, text, plain]).toString('utf8'), `${f.name} ${JSON.stringify(v)}`).toBe(
          [base, values, base].map((r) => recordToCsvLine(r) + '\r\n').join(''),
        );
        expect(storedRecordsToJsonLinesBytes([plain, text, plain]).toString('utf8'), `${f.name} ${JSON.stringify(v)}`).toBe(
          [base, values, base].map((r) => recordToJson(r) + '\n').join(''),
        );
        const wanted = [0, 2, 4, 18, 19];
        expect(parseStoredValues(text, wanted)).toEqual(wanted.map((k) => values[k]));
        // A text cut anywhere gives the values or nothing, never values misread from inside a string.
        for (let cut = 1; cut < 400; cut += 3) {
          const got = parseStoredValues(text.slice(0, cut), wanted);
          if (got) expect(got).toEqual(wanted.map((k) => values[k]));
        }
      }
    });
  });

  // A run of absent values ("" or 0) goes out as one copy with the next key: every run's ends.
  it('matches them where absent values run from the start, to the end, or fill the record', () => {
    const absent = FIELDS.map((f) => (f.type === 'string' ? '' : 0));
    const present = FIELDS.map((f) => (f.type === 'string' ? '0' : 1));
    const json = (values: RecordValues): string => storedRecordsToJsonBytes('', [Buffer.from(JSON.stringify(values))], '').toString('utf8');
    expect(json(absent)).toBe(recordToJson(absent));
    expect(json(present)).toBe(recordToJson(present));
    FIELDS.forEach((_, i) => {
      const one = absent.map((v, k) => (k === i ? present[k]! : v));
      expect(json(one), FIELDS[i]!.name).toBe(recordToJson(one));
      const gap = present.map((v, k) => (k === i ? absent[k]! : v));
      expect(json(gap), FIELDS[i]!.name).toBe(recordToJson(gap));
    });
    // A record of fewer values says those values only; one of more is not a record.
    expect(json(absent.slice(0, 5))).toBe(JSON.stringify(Object.fromEntries(FIELDS.slice(0, 5).map((f, k) => [f.name, absent[k]]))));
    expect(() => json([...absent, ''])).toThrow('Malformed stored record.');
  });
});
