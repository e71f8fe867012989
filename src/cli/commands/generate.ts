import { resolve } from 'node:path';
import { generateDataset } from '../../core/generate';
import { rethrowDiskFull } from '../../core/fs/diskFull';
import { parse, required, wholeNumber } from '../args';

export function generateCommand(argv: string[]): void {
  const { values } = parse(argv, { rows: { type: 'string' }, seed: { type: 'string' }, out: { type: 'string' } });
  const rows = wholeNumber(required(values, 'rows'), 'rows', 0, 1);
  const seed = wholeNumber(values.seed, 'seed', 1);
  const out = resolve(required(values, 'out'));
  let result;
  try {
    result = generateDataset({ rows, seed, out });
  } catch (e) {
    // The writer removed its own files; say how much the dataset would need (the current format: ~382 bytes a
    // record at 10M, ~540 in PID order, docs/performance.md; rounded up for the file being built beside it).
    rethrowDiskFull(e, out, () => rows * 600);
  }
  console.log(
    `generated ${result.records} records in ${result.seconds.toFixed(2)} s (${Math.round(result.records / result.seconds)} records/s) -> ${out}`,
  );
}
