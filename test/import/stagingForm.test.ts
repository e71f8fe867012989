// stagingForm.ts: an import stages its texts as they are only when they are small beside the room
// it has; large inputs, gzip inputs that inflate past the limit, and a disk whose room cannot be
// told stage them compressed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { compressStagedTexts, RAW_STAGING_MAX_BYTES, rawTextBytes } from '../../src/core/import/stage/stagingForm';

const dir = mkdtempSync(join(tmpdir(), 'audience-desk-staging-form-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const GB = 2 ** 30;
const csv = (size: number) => ({ size, gzip: false });
const gzip = (size: number) => ({ size, gzip: true });

it('estimates the staged texts from the inputs: twice plain CSV, twenty times gzip', () => {
  expect(rawTextBytes([csv(100), gzip(10), csv(50)])).toBe(200 + 200 + 100);
  expect(rawTextBytes([])).toBe(0);
});

it('stages small inputs as they are when the disk has four times their room, and compressed otherwise', () => {
  const path = join(dir, 'out.sqlite.staging-1');
  expect(compressStagedTexts([csv(100e6)], path, 10 * GB)).toBe(false);
  // 200 MB of texts: a quarter of the free space at most.
  expect(compressStagedTexts([csv(100e6)], path, 800e6)).toBe(false);
  expect(compressStagedTexts([csv(100e6)], path, 799e6)).toBe(true);
  // Past the limit, whatever the room.
  expect(compressStagedTexts([csv(RAW_STAGING_MAX_BYTES / 2 + 1)], path, 1e15)).toBe(true);
  expect(compressStagedTexts([gzip(RAW_STAGING_MAX_BYTES / 20 + 1)], path, 1e15)).toBe(true);
  expect(compressStagedTexts([csv(RAW_STAGING_MAX_BYTES / 4), csv(RAW_STAGING_MAX_BYTES / 4)], path, 1e15)).toBe(false);
  // Room that cannot be told is no room to spare.
  expect(compressStagedTexts([csv(1_000)], path, null)).toBe(true);
});

it("looks up the free space of the staging file's folder when not told", () => {
  // This folder has room for a kilobyte's texts; one that does not exist cannot be told.
  expect(compressStagedTexts([csv(1_000)], join(dir, 'out.sqlite.staging-1'))).toBe(false);
  expect(compressStagedTexts([csv(1_000)], join(dir, 'no-such-folder', 'out.sqlite.staging-1'))).toBe(true);
});
