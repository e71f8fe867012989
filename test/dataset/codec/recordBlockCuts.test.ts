// A block's text cut into its records (blockCodec.ts recordBlockOf), into a new RecordBlock or into
// one a reader reuses for each block a slot holds: the same cuts either way, and a block with fewer
// or more records than it should hold is damage either way, whatever the reused one held before.
import { describe, expect, it } from 'vitest';
import { recordBlockOf, type RecordBlock } from '../../../src/core/dataset/codec/blockCodec';

const PATH = '/data/people.sqlite';
const PER = 4;
const id = (block: number, count: number) => ({ block, count, perBlock: PER });
const text = (records: string[]) => Buffer.from(records.join('\n'), 'utf8');
const cuts = (b: RecordBlock, count: number) =>
  Array.from({ length: count }, (_, i) => b.bytes.toString('utf8', b.starts[i]!, b.starts[i + 1]! - 1));

describe('a block cut into its records', () => {
  it('cuts the same into a reused RecordBlock as into a new one, block after block', () => {
    const reused: RecordBlock = { bytes: Buffer.alloc(0), starts: new Uint32Array(PER + 1) };
    const blocks = [
      ['["a","b"]', '["cc"]', '["é","ü"]', '[1,2,3]'],
      ['["a much longer record than the others","x"]', '[]', '["y"]', '["z"]'],
      // The file's last block, shorter than the others.
      ['["last"]', '["one"]'],
      ['["w"]', '["v"]', '["u"]', '["t"]'],
    ];
    blocks.forEach((records, k) => {
      const bytes = text(records);
      const into = recordBlockOf(PATH, id(k, records.length), bytes, reused);
      expect(into).toBe(reused);
      expect(into.bytes).toBe(bytes);
      expect(cuts(into, records.length)).toEqual(records);
      expect(cuts(recordBlockOf(PATH, id(k, records.length), bytes), records.length)).toEqual(records);
    });
  });

  it('names damage in a reused RecordBlock as in a new one', () => {
    const reused: RecordBlock = { bytes: Buffer.alloc(0), starts: new Uint32Array(PER + 1) };
    recordBlockOf(PATH, id(0, PER), text(['[1]', '[2]', '[3]', '[4]']), reused);
    const fewer = text(['[1]', '[2]', '[3]']);
    const more = text(['[1]', '[2]', '[3]', '[4]', '[5]']);
    for (const into of [undefined, reused]) {
      expect(() => recordBlockOf(PATH, id(1, PER), fewer, into)).toThrow(/hold fewer records than they should/);
      expect(() => recordBlockOf(PATH, id(1, PER), more, into)).toThrow(/hold more records than they should/);
    }
    expect(() => recordBlockOf(PATH, id(1, PER + 1), more, reused)).toThrow(RangeError);
  });
});
