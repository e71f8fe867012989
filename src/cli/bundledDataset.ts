// The sample dataset that ships with the app: generated into resources/ at install time (never
// committed as a binary), with fixed size and seed so every install holds the same records.
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { BUNDLED_FILE_NAME } from '../core/appState/homeLayout';

export { BUNDLED_FILE_NAME };

export const BUNDLED_ROWS = 100_000;
export const BUNDLED_SEED = 20_260_101;
/**
 * zstd level of the sample's record blocks: it is built once and shipped, and reading costs the same at
 * every level, so it is built at 15 (~25 s more at install) rather than the writer's 3: 38.9 MB against 41.1 in 4 KB pages.
 */
export const BUNDLED_RECORD_LEVEL = 15;

export const RESOURCES_DIR = fileURLToPath(new URL('../../resources/', import.meta.url));
export const BUNDLED_DATASET_PATH = join(RESOURCES_DIR, BUNDLED_FILE_NAME);
