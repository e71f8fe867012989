// Made-up field vectors and filter masks for the scan and marking loops' tests (scanKernels.test.ts,
// markKernels.test.ts), and the plainest reading of a filter to hold the loops to: every position
// tested one at a time.
import type { Vector } from '../../src/core/dataset/codec/columnVector';
import { valueTest, type ScanPredicate } from '../../src/core/query/scanKernels';

/** Positions of every made-up vector. */
export const LENGTH = 700;

/** A vector of `kind` whose values are below `distinct`, starting `offset` values into a larger buffer. */
export function vector(kind: 'u8' | 'u16' | 'u32', distinct: number, offset: number, next: () => number): Vector {
  const width = kind === 'u8' ? 1 : kind === 'u16' ? 2 : 4;
  const buffer = new ArrayBuffer((LENGTH + 8 + offset) * width);
  const data =
    kind === 'u8'
      ? new Uint8Array(buffer, offset, LENGTH)
      : kind === 'u16'
        ? new Uint16Array(buffer, offset * 2, LENGTH)
        : new Uint32Array(buffer, offset * 4, LENGTH);
  for (let i = 0; i < LENGTH; i++) data[i] = Math.floor(next() * distinct);
  return data;
}

/** A mask over `distinct` codes keeping each with probability `share`. */
export function maskOf(distinct: number, share: number, next: () => number): Uint8Array {
  const mask = new Uint8Array(distinct);
  for (let v = 0; v < distinct; v++) mask[v] = next() < share ? 1 : 0;
  return mask;
}

/** The positions of [first, end) that satisfy every predicate, tested one at a time. */
export function plainly(ps: readonly ScanPredicate[], first: number, end: number): number[] {
  const out: number[] = [];
  for (let i = first; i < end; i++) if (ps.every((p) => valueTest(p)(p.data[i]!))) out.push(i);
  return out;
}
