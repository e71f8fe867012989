// Whether an import stages its rows' texts compressed or as they are. Compressing them (zstd, level 1)
// keeps a national import's scratch room to a quarter, but costs ~5 µs of the main thread a record
// and ~1 CPU-second in 200,000 rows; staged as they are, the same import ran 5-8% faster. So an
// import whose texts are small beside the room it has stages them as they are, and any other
// compressed. docs/import.md, "Compressed staging".
import { freeBytes } from '../../fs/diskFull';

/**
 * Staged text bytes a byte of plain CSV input: a record's JSON is ~1.43 times its vendor row
 * (1,356 bytes against 950 at 1,000,000 records), rounded up for files of shorter cells.
 */
const TEXT_BYTES_PER_CSV_BYTE = 2;
/** The same for a gzip file's bytes: vendor CSV deflates 5-8 times, rounded up. */
const TEXT_BYTES_PER_GZIP_BYTE = 20;
/** Past this, texts are staged compressed whatever the room: some 2 million records by the estimate. */
export const RAW_STAGING_MAX_BYTES = 4 * 2 ** 30;
/** Texts staged as they are take at most this share of the free space where the staging file goes. */
export const RAW_STAGING_FREE_SHARE = 1 / 4;

/** About how many bytes the texts of these inputs take staged as they are (an upper bound, not a promise). */
export function rawTextBytes(sources: ReadonlyArray<{ size: number; gzip: boolean }>): number {
  return sources.reduce((sum, s) => sum + s.size * (s.gzip ? TEXT_BYTES_PER_GZIP_BYTE : TEXT_BYTES_PER_CSV_BYTE), 0);
}

/**
 * Whether the texts of `sources` should be staged compressed in a staging file at `stagingPath`: yes
 * unless they are small (RAW_STAGING_MAX_BYTES) and the disk has four times their room (`free`: the
 * bytes free there, looked up when not given; unknown counts as no room to spare).
 */
export function compressStagedTexts(
  sources: ReadonlyArray<{ size: number; gzip: boolean }>,
  stagingPath: string,
  free: number | null = freeBytes(stagingPath),
): boolean {
  const raw = rawTextBytes(sources);
  return raw > RAW_STAGING_MAX_BYTES || free === null || raw > free * RAW_STAGING_FREE_SHARE;
}
