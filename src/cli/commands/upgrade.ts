// `cli upgrade --db FILE`: rewrites a dataset file of an older format in the current one, in place
// and atomically (docs/dataset-format.md, "Version history"). Prints one line; exit 0 when the file
// was upgraded or was current already, 1 when it cannot be.
import { resolve } from 'node:path';
import { addStoredPidOrder, fileLacksStoredPidOrder, lacksStoredPidOrder } from '../../core/dataset/legacy/addPidOrder';
import { metaOfFile } from '../../core/dataset/legacy/inPlaceChange';
import { hasZstdChunksOnly, packVectorChunks } from '../../core/dataset/legacy/packVectors';
import { upgradeDataset } from '../../core/dataset/legacy/upgradeDataset';
import { DATASET_FORMAT_VERSION } from '../../core/dataset/format/schema';
import { parse, required } from '../args';

/** Progress on stderr a line every tenth, so a national file shows it is moving. */
function everyTenth(unit: string): (done: number, total: number) => void {
  let shown = 0;
  return (done, total) => {
    if (done === total || done - shown >= total / 10) {
      process.stderr.write(`upgrade: ${done} of ${total} ${unit}\n`);
      shown = done;
    }
  };
}

export function upgradeCommand(argv: string[]): void {
  const { values } = parse(argv, { db: { type: 'string' } });
  const path = resolve(required(values, 'db'));
  // Failures (damaged, not a dataset, unknown format) are AppErrors: one line and exit 1 (cli/index.ts).
  const meta = metaOfFile(path);
  if (hasZstdChunksOnly(meta)) {
    // Format 7 differs only in its vector chunks, rewritten in place (packVectors.ts); a file
    // without a stored PID order then gains one as a current file does.
    const records = packVectorChunks(path, everyTenth('vectors'));
    if (fileLacksStoredPidOrder(path)) addStoredPidOrder(path);
    console.log(`upgraded: ${path}: ${records} records, format 7 -> ${DATASET_FORMAT_VERSION} (vector chunks packed in place).`);
    return;
  }
  if (meta.format_version === DATASET_FORMAT_VERSION) {
    // A current file written before PID orders were stored gains one in place (addPidOrder.ts).
    if (lacksStoredPidOrder(meta)) {
      const records = addStoredPidOrder(path);
      console.log(`upgraded: ${path}: ${records} records, stored PID order added (format ${DATASET_FORMAT_VERSION}).`);
      return;
    }
    console.log(`current: ${path} is in format ${DATASET_FORMAT_VERSION} already.`);
    return;
  }
  const result = upgradeDataset(path, everyTenth('records'));
  console.log(`upgraded: ${result.path}: ${result.records} records, format ${result.from} -> ${DATASET_FORMAT_VERSION}.`);
}
