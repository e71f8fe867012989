// Paging through a stored PID order (storedPidOrder.ts): slices of a state's order read across chunk
// boundaries exactly as the whole order, from the whole order once the engine keeps it, with a few
// decoded chunks kept; a filtered audience walked through the order gives, at every depth and page
// size, the matches listed in PID order, whether its pages come in order, backwards or at random.
import { describe, expect, it } from 'vitest';
import { randomFrom } from '../../src/core/audience/contract/listSteps';
import type { StateOrder } from '../../src/core/dataset/format/pidRanks';
import { OrderWalkSelection, StoredPidOrder, StoredRangeSelection } from '../../src/core/query/storedPidOrder';
import { markedPositions } from '../../src/core/query/markKernels';
import { StretchCounter } from '../../src/core/query/stretchCounter';

const CHUNK = 16;

/** A file of three states laid out like the writer's: at position first + r, the offset of the state's r-th PID. */
function layout(counts: number[], seed: number) {
  const random = randomFrom(seed);
  const states = counts.map((count, s) => {
    const order = Uint32Array.from({ length: count }, (_, k) => k);
    for (let i = count - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    const first = counts.slice(0, s).reduce((a, b) => a + b, 0);
    return { range: { state: `S${s}`, first, count }, order };
  });
  const positions = new Uint32Array(counts.reduce((a, b) => a + b, 0));
  for (const { range, order } of states) positions.set(order, range.first);
  const reads: number[] = [];
  const file = {
    pidOrderChunkSize: CHUNK,
    pidOrderChunk: (c: number) => {
      reads.push(c);
      return positions.slice(c * CHUNK, (c + 1) * CHUNK);
    },
  };
  return { states, file, reads, positions };
}

describe('a stored PID order', () => {
  it('decodes chunks into memory written ahead and into dropped chunks, slicing as the whole order', () => {
    // 52 chunks, three times as many as are kept: chunks are dropped and their memory taken again.
    const { states, positions } = layout([400, 333, 91], 9);
    const fresh: number[] = [];
    const file = {
      pidOrderChunkSize: CHUNK,
      pidOrderChunk: (c: number, into?: Uint32Array) => {
        const n = Math.min(CHUNK, positions.length - c * CHUNK);
        const out = into && into.length >= n ? into.subarray(0, n) : (fresh.push(c), new Uint32Array(n));
        out.set(positions.subarray(c * CHUNK, c * CHUNK + n));
        return out;
      },
    };
    const stored = new StoredPidOrder(file, () => null);
    stored.writeAhead();
    const random = randomFrom(4);
    for (let round = 0; round < 300; round++) {
      const { range, order } = states[Math.floor(random() * states.length)]!;
      const from = Math.floor(random() * range.count);
      const to = from + 1 + Math.floor(random() * 40);
      expect([...stored.of(range)(from, to)], `${range.state} ${from}..${to}`).toEqual([...order.subarray(from, to)]);
    }
    expect(fresh).toEqual([]);
  });

  it("decodes the given states' first chunks ahead, so their first pages read none, and leaves a chunk that does not read to its page", () => {
    // The third state starts 13 places into a chunk: its first 10 ranks are in two.
    const { states, file, reads } = layout([400, 333, 91], 5);
    const stored = new StoredPidOrder(file, () => null);
    stored.writeAhead(
      states.map((s) => s.range),
      10,
    );
    expect(reads).toEqual([0, 25, 45, 46]);
    reads.length = 0;
    for (const { range, order } of states) expect([...stored.of(range)(0, 10)]).toEqual([...order.subarray(0, 10)]);
    expect(reads).toEqual([]);

    // Half the kept chunks at most, the first states given first.
    const many = layout(
      Array.from({ length: 20 }, () => 40),
      6,
    );
    new StoredPidOrder(many.file, () => null).writeAhead(
      many.states.map((s) => s.range),
      10,
    );
    // Every other state of 40 starts 8 places into a chunk and takes two: six states, eight chunks.
    expect(many.reads).toEqual([0, 2, 3, 5, 7, 8, 10, 12]);

    const damaged = {
      pidOrderChunkSize: CHUNK,
      pidOrderChunk: (): Uint32Array => {
        throw new Error('chunk 0 fails its checksum');
      },
    };
    const unread = new StoredPidOrder(damaged, () => null);
    expect(() => unread.writeAhead(states.map((s) => s.range))).not.toThrow();
    expect(() => unread.of(states[0]!.range)(0, 10)).toThrow(/fails its checksum/);
  });

  it('slices each state across chunk boundaries as its whole order, keeping a few decoded chunks', () => {
    const { states, file, reads } = layout([37, 100, 5], 3);
    const stored = new StoredPidOrder(file, () => null);
    for (const { range, order } of states) {
      const slice = stored.of(range);
      for (const [from, to] of [
        [0, 1],
        [0, range.count],
        [3, 29],
        [range.count - 2, range.count + 10],
        [range.count, range.count + 1],
      ] as Array<[number, number]>)
        expect([...slice(from, to)], `${range.state} ${from}..${to}`).toEqual([...order.subarray(from, to)]);
    }
    // Reading one chunk again is served from the kept ones.
    reads.length = 0;
    const second = stored.of(states[1]!.range);
    second(0, 5);
    second(0, 5);
    expect(reads.length).toBeLessThanOrEqual(1);
  });

  it('counts the stretches before a page at depth without dropping the chunks it keeps', () => {
    const { states, file, reads } = layout([400, 333, 91], 9);
    // A worker that takes the job and never claims a chunk: this thread counts them all.
    const counter = new StretchCounter(
      { kind: 'order', path: 'x', identity: 'x', header: null as never, chunkSize: CHUNK },
      {
        postStretchCounts: () => true,
      },
    );
    const stored = new StoredPidOrder(file, () => null, counter);
    for (const { range } of states) stored.of(range)(0, 1);
    const { range, order } = states[0]!;
    const marks = new Uint8Array(new SharedArrayBuffer((range.count + 7) >>> 3)).fill(0xff);
    const walk = OrderWalkSelection.ofMarks(marks, range.count, range.first, range.count, stored.of(range), {
      stretch: CHUNK,
      counting: stored.counting(range),
    });
    reads.length = 0;
    expect([...walk.page(300, 5)]).toEqual([...order.subarray(300, 305)].map((o) => range.first + o));
    // Three quarters deep: the seven stretches from the page's on are counted (the matches before it
    // are the total less theirs), not the eighteen before it; then the page's two chunks are read.
    expect(reads.length).toBe(9);
    reads.length = 0;
    // A quarter deep, from the front: the six stretches before the page's (chunk 0 is kept), then its own.
    expect([...walk.page(100, 5)]).toEqual([...order.subarray(100, 105)].map((o) => range.first + o));
    expect(reads.length).toBe(6);
    // Every stretch counted is known from then on: a page between them counts none.
    reads.length = 0;
    expect([...walk.page(330, 5)]).toEqual([...order.subarray(330, 335)].map((o) => range.first + o));
    expect(reads.length).toBeLessThanOrEqual(2);
    reads.length = 0;
    for (const { range } of states) stored.of(range)(0, 1);
    expect(reads).toEqual([]);
  });

  it('slices the whole order the engine keeps, reading no chunk', () => {
    const { states, file, reads } = layout([40, 40], 5);
    const whole = new Map<string, StateOrder>(
      states.map(({ range, order }) => [range.state, { order, ranks: new Uint32Array(0), byteLength: 0 }]),
    );
    const stored = new StoredPidOrder(file, (state) => whole.get(state) ?? null);
    const { range, order } = states[1]!;
    const selection = new StoredRangeSelection(range.first, range.count, stored.of(range));
    expect([...selection.page(10, 7)]).toEqual([...order.subarray(10, 17)].map((o) => range.first + o));
    expect(reads).toEqual([]);
  });

  it('walks a filtered audience in PID order at every depth, in any order of pages', () => {
    const { states, file } = layout([13, 203, 61], 8);
    const stored = new StoredPidOrder(file, () => null);
    // Stretches counted many at once (from the front or the back), by this thread: the worker takes each job and claims nothing.
    const counted = new StoredPidOrder(
      file,
      () => null,
      new StretchCounter(
        { kind: 'order', path: 'x', identity: 'x', header: null as never, chunkSize: CHUNK },
        { postStretchCounts: () => true },
      ),
    );
    const shared = (marks: Uint8Array) => {
      const copy = new Uint8Array(new SharedArrayBuffer(marks.length));
      copy.set(marks);
      return copy;
    };
    const random = randomFrom(17);
    for (const { range, order } of states) {
      for (const share of [0, 0.02, 0.3, 1]) {
        const matched = Array.from({ length: range.count }, (_, k) => k).filter(() => random() < share);
        const positions = Uint32Array.from(matched, (k) => range.first + k);
        const set = new Set(matched);
        const expected = [...order].filter((offset) => set.has(offset)).map((offset) => range.first + offset);
        const marks = new Uint8Array((range.count + 7) >>> 3);
        for (const k of matched) marks[k >>> 3]! |= 1 << (k & 7);
        // Stretches read whole or a few ranks at a time; built from a list of the matches or from their bits.
        for (const [stretch, slice, from, counting] of [
          [1, 4096, 'list', false],
          [7, 4096, 'marks', false],
          [64, 5, 'list', false],
          [64, 3, 'marks', false],
          [65536, 4096, 'list', false],
          [65536, 16, 'marks', false],
          [1, 4096, 'marks', true],
          [7, 4096, 'list', true],
          [7, 3, 'marks', true],
          [64, 5, 'marks', true],
        ] as const) {
          const options = counting ? { stretch, slice, counting: counted.counting(range) } : { stretch, slice };
          const order = counting ? counted.of(range) : stored.of(range);
          const walk = () =>
            from === 'list'
              ? OrderWalkSelection.of(positions, positions.length, range.first, range.count, order, options)
              : OrderWalkSelection.ofMarks(
                  counting ? shared(marks) : marks.slice(),
                  matched.length,
                  range.first,
                  range.count,
                  order,
                  options,
                );
          expect(walk().total).toBe(expected.length);
          // In storage order, from the bits alone (what a profile of the audience reads).
          expect([...markedPositions(walk().stateMarks, expected.length, range.first)]).toEqual([...positions]);
          const skips = Array.from({ length: expected.length + 2 }, (_, k) => k);
          // Each order of pages on a fresh selection (the running counts are found as pages need them):
          // deep first, from the start, at random, and all three one after the other.
          const deepFirst = [...skips].reverse();
          const atRandom = skips.map(() => Math.floor(random() * (expected.length + 2)));
          for (const [name, orderOfPages] of [
            ['deep first', deepFirst],
            ['from the start', skips],
            ['at random', atRandom],
            ['all', [...deepFirst, ...skips, ...atRandom]],
          ] as const)
            for (const limit of [1, 3, 50]) {
              const selection = walk();
              for (const skip of orderOfPages)
                expect(
                  [...selection.page(skip, limit)],
                  `${range.state} ${share} ${stretch} ${slice} ${from} ${counting} ${name} ${skip} ${limit}`,
                ).toEqual(expected.slice(skip, skip + limit));
            }
        }
      }
    }
  });
});
