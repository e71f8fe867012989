// A stored dictionary is read by splitting its JSON text when that is exact (dictionaryText.ts):
// for every kind of value, the answer is JSON.parse's.
import { describe, expect, it } from 'vitest';
import { parseDictionary } from '../../../src/core/dataset/codec/dictionaryText';

describe('a stored dictionary', () => {
  it('reads as JSON.parse reads it, whatever its values hold', () => {
    const cases: string[][] = [
      [],
      [''],
      ['', ''],
      ['90210', '10001', ''],
      ['a","b', 'c'],
      ['quote "inside"', 'back\\slash', 'line\nbreak', 'tab\t'],
      ['São Paulo', 'Zürich', '東京', '😀'],
      ['[', ']', ',', '","', '"]', '["'],
      Array.from({ length: 5000 }, (_, k) => `V${k}`),
    ];
    for (const values of cases) expect(parseDictionary(JSON.stringify(values)), JSON.stringify(values).slice(0, 80)).toEqual(values);
  });

  it('refuses text that is not an array of strings', () => {
    expect(() => parseDictionary('{"a":1}')).toThrow(/not an array of strings/);
    expect(() => parseDictionary('[1,2]')).toThrow(/not an array of strings/);
    expect(() => parseDictionary('["a",')).toThrow();
  });
});
