// A stored dictionary is read by splitting its JSON text when that is exact (dictionaryText.ts):
// for every kind of value, the answer is JSON.parse's. DictionaryText finds codes and the count in
// the text without making the values: its answers are those of the parsed array, for values it
// holds and values it does not.
import { describe, expect, it } from 'vitest';
import { DictionaryText, parseDictionary } from '../../../src/core/dataset/codec/dictionaryText';

const CASES: string[][] = [
  [],
  [''],
  ['', ''],
  ['90210', '10001', ''],
  ['a","b', 'c'],
  ['quote "inside"', 'back\\slash', 'line\nbreak', 'tab\t'],
  ['São Paulo', 'Zürich', '東京', '😀'],
  ['[', ']', ',', '","', '"]', '["'],
  Array.from({ length: 5000 }, (_, k) => `V${k}`),
  // Commas inside values: a search for `","` must not take the end of one value and the start of the next for one.
  ['A,', ',B', 'C'],
  [',', 'A', ''],
  ['SMITH, JOHN', 'JOHN', 'SMITH'],
];

describe('a stored dictionary', () => {
  it('reads as JSON.parse reads it, whatever its values hold', () => {
    const cases = CASES;
    for (const values of cases) expect(parseDictionary(JSON.stringify(values)), JSON.stringify(values).slice(0, 80)).toEqual(values);
  });

  it('gives the codes and the count of the parsed values, without making them when its text allows', () => {
    for (const values of CASES) {
      const text = JSON.stringify(values);
      const dictionary = new DictionaryText(text);
      const label = text.slice(0, 80);
      expect(dictionary.size, label).toBe(values.length);
      // The parsed array's indexOf is the answer (a stored dictionary's values are distinct; a made-up one may repeat).
      for (const value of values) expect(dictionary.indexOf(value), `${label}: ${value}`).toBe(values.indexOf(value));
      const absent = ['', ',', '","', '"', 'A",",B', 'V5000', 'SMITH, JOHN, JR', 'V1 ', ' V1', 'v1', '\\'].filter(
        (v) => !values.includes(v),
      );
      for (const value of absent) expect(dictionary.indexOf(value), `${label}: ${value}`).toBe(-1);
      // Only a text with an escape, or no value, is parsed to answer.
      expect(dictionary.made, label).toBe(values.length === 0 || text.includes('\\'));
      expect(dictionary.values()).toEqual(values);
      expect(dictionary.made).toBe(true);
      expect(dictionary.indexOf(values[0] ?? 'x')).toBe(values.length > 0 ? 0 : -1);
    }
  });

  it('refuses text that is not an array of strings', () => {
    expect(() => parseDictionary('{"a":1}')).toThrow(/not an array of strings/);
    expect(() => parseDictionary('[1,2]')).toThrow(/not an array of strings/);
    expect(() => parseDictionary('["a",')).toThrow();
  });
});
