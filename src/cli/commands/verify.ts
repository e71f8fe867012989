// `cli verify --db FILE`: checks every record block and vector of a dataset file against its
// checksum and prints one line: exit 0 when the file is sound, 1 when it is damaged, truncated or
// not a dataset (docs/dataset-format.md, "Damage").
import { resolve } from 'node:path';
import { verifyDatasetFile } from '../../core/dataset/verify/verifyFile';
import { parse, required } from '../args';

export function verifyCommand(argv: string[]): void {
  const { values } = parse(argv, { db: { type: 'string' } });
  const result = verifyDatasetFile(resolve(required(values, 'db')));
  if (result.ok) {
    console.log(`ok: ${result.path}: ${result.records} records, every record block and vector matches its checksum.`);
    return;
  }
  console.error(`damaged: ${result.message}`);
  process.exitCode = 1;
}
