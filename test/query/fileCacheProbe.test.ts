// Whether the OS holds a file (query/fileCacheProbe.ts), from the time of reads spread over it: a
// file just written reads as cached; with reads timed as the disk's, a few slow ones say it is not,
// one alone does not, and the probe stops at the last one it needs.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COLD_FROM, fileLooksCached, PROBE_BYTES, PROBES, SLOW_READ_MS } from '../../src/core/query/fileCacheProbe';

const dir = mkdtempSync(join(tmpdir(), 'audience-desk-cache-probe-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const path = join(dir, 'file.bin');
const PAGES = 1000;
writeFileSync(path, Buffer.alloc(PAGES * PROBE_BYTES, 7));

/** A read timed at `ms(k)` for its k-th call, the offsets it was asked for kept. */
function timedAs(ms: (k: number) => number): { read: (fd: number, offset: number) => number; offsets: number[] } {
  const offsets: number[] = [];
  return { read: (_fd, offset) => (offsets.push(offset), ms(offsets.length - 1)), offsets };
}

describe('fileLooksCached', () => {
  it('says a file just written is cached, reading it for real', () => {
    expect(fileLooksCached(path)).toBe(true);
  });

  it('reads pages spread evenly over the whole file', () => {
    const { read, offsets } = timedAs(() => 0.01);
    expect(fileLooksCached(path, read)).toBe(true);
    expect(offsets).toHaveLength(PROBES);
    expect(offsets.every((o) => o % PROBE_BYTES === 0)).toBe(true);
    expect(offsets[0]).toBeLessThan((PAGES / PROBES) * PROBE_BYTES);
    expect(offsets.at(-1)).toBeGreaterThan(((PAGES * (PROBES - 1)) / PROBES) * PROBE_BYTES);
  });

  it('says a file whose reads take the disk’s time is not cached, stopping at the slow read that decides', () => {
    const { read, offsets } = timedAs(() => 0.3);
    expect(fileLooksCached(path, read)).toBe(false);
    expect(offsets).toHaveLength(COLD_FROM);
  });

  it('takes one or two slow reads among fast ones for the scheduler, not the disk', () => {
    expect(fileLooksCached(path, timedAs((k) => (k === 5 ? 0.4 : 0.01)).read)).toBe(true);
    expect(fileLooksCached(path, timedAs((k) => (k < COLD_FROM - 1 ? 0.4 : 0.01)).read)).toBe(true);
    expect(fileLooksCached(path, timedAs((k) => (k % 5 === 0 ? SLOW_READ_MS * 2 : 0.01)).read)).toBe(false);
  });

  it('says a file it cannot read is not cached', () => {
    expect(fileLooksCached(join(dir, 'missing.bin'))).toBe(false);
  });
});
