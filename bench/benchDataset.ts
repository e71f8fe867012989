// The bench's generated dataset file, bench/data/bench-<rows>-<seed>.sqlite: made when missing, and
// made again when an earlier version wrote it in an older format (the figures are of the current one).
// Each time, `cli verify` checks it and says so (bench/cliVerify.ts).
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Dataset } from '../src/core/dataset/read/dataset';
import { DATASET_FORMAT_VERSION } from '../src/core/dataset/format/schema';
import { generateDataset } from '../src/core/generate';
import { cliVerify, type CliVerify } from './cliVerify';

export const BENCH_DATA_DIR = join(import.meta.dirname, 'data');

/** Whether a dataset file opens and is of the format this version writes. */
function isCurrentFormat(path: string): boolean {
  try {
    const d = Dataset.open(path);
    const current = d.formatVersion === DATASET_FORMAT_VERSION;
    d.close();
    return current;
  } catch {
    return false;
  }
}

/** The file's path, how its generation went when it was generated now (null: it was there), and what `cli verify` said of it. */
export function benchDataset(
  rows: number,
  seed: number,
): { path: string; generation: { records: number; seconds: number } | null; verify: CliVerify } {
  mkdirSync(BENCH_DATA_DIR, { recursive: true });
  const path = join(BENCH_DATA_DIR, `bench-${rows}-${seed}.sqlite`);
  if (existsSync(path) && !isCurrentFormat(path)) rmSync(path, { force: true });
  let generation = null;
  if (!existsSync(path)) {
    console.log(`generating ${rows} records…`);
    generation = generateDataset({ rows, seed, out: path });
  }
  return { path, generation, verify: cliVerify(path) };
}
