// npm postinstall step: generates the bundled sample dataset unless one from the same generator,
// seed and size is there (the dataset format is checked when the file is opened).
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { Dataset } from '../core/dataset/read/dataset';
import { DATASET_FORMAT_VERSION } from '../core/dataset/format/schema';
import { GENERATOR_VERSION, generateDataset } from '../core/generate';
import { BUNDLED_DATASET_PATH, BUNDLED_RECORD_LEVEL, BUNDLED_ROWS, BUNDLED_SEED, RESOURCES_DIR } from './bundledDataset';

function isCurrent(): boolean {
  if (!existsSync(BUNDLED_DATASET_PATH)) return false;
  try {
    const dataset = Dataset.open(BUNDLED_DATASET_PATH);
    const ok =
      dataset.meta.seed === String(BUNDLED_SEED) &&
      dataset.records === BUNDLED_ROWS &&
      // An older format does not open at all (Dataset.open throws); these say the file is whole and
      // as this version writes it: the meta lists of household hash collisions and splits...
      dataset.formatVersion === DATASET_FORMAT_VERSION &&
      dataset.householdCollisions() !== null &&
      dataset.householdSplits() !== null &&
      // ...the list keys under this version's rules, and the shipped zstd level: else it is made again.
      dataset.meta.record_level === String(BUNDLED_RECORD_LEVEL) &&
      dataset.meta.generator_version === GENERATOR_VERSION;
    dataset.close();
    return ok;
  } catch {
    return false;
  }
}

if (isCurrent()) {
  console.log(`bundled dataset: ${BUNDLED_DATASET_PATH} (up to date)`);
} else {
  mkdirSync(RESOURCES_DIR, { recursive: true });
  const result = generateDataset({ rows: BUNDLED_ROWS, seed: BUNDLED_SEED, out: BUNDLED_DATASET_PATH, recordLevel: BUNDLED_RECORD_LEVEL });
  console.log(`bundled dataset: ${result.records} records in ${result.seconds.toFixed(1)} s -> ${BUNDLED_DATASET_PATH}`);
}
// Every dataset is written owner-only (fs/privateFile.ts), but this one holds made-up people and
// ships inside the app, where every user of an installed copy (root-owned, as a .deb installs it)
// must be able to read it.
chmodSync(BUNDLED_DATASET_PATH, 0o644);
