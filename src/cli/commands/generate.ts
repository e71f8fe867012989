import { resolve } from 'node:path';
import { generateDataset } from '../../core/generate';
import { parse, required, wholeNumber } from '../args';

export function generateCommand(argv: string[]): void {
  const { values } = parse(argv, { rows: { type: 'string' }, seed: { type: 'string' }, out: { type: 'string' } });
  const rows = wholeNumber(required(values, 'rows'), 'rows', 0, 1);
  const seed = wholeNumber(values.seed, 'seed', 1);
  const out = resolve(required(values, 'out'));
  const result = generateDataset({ rows, seed, out });
  console.log(
    `generated ${result.records} records in ${result.seconds.toFixed(2)} s (${Math.round(result.records / result.seconds)} records/s) -> ${out}`,
  );
}
