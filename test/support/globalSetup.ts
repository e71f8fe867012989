// Generates the datasets the tests share, once per run, into a temporary folder: real SQLite files
// written by the real generator. Tests get their paths with vitest's inject().
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { generateDataset } from '../../src/core/generate';

export const TEST_ROWS = 30_000;
export const TEST_SEED = 7;
export const TINY_ROWS = 40;

declare module 'vitest' {
  export interface ProvidedContext {
    datasetPath: string;
    tinyDatasetPath: string;
    testRows: number;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'audience-desk-test-'));
  const datasetPath = join(dir, 'test-dataset.sqlite');
  const tinyDatasetPath = join(dir, 'tiny-dataset.sqlite');
  generateDataset({ rows: TEST_ROWS, seed: TEST_SEED, out: datasetPath });
  // So few people that most states have none: for "a valid state with no records".
  generateDataset({ rows: TINY_ROWS, seed: TEST_SEED, out: tinyDatasetPath });
  project.provide('datasetPath', datasetPath);
  project.provide('tinyDatasetPath', tinyDatasetPath);
  project.provide('testRows', TEST_ROWS);
  return () => rmSync(dir, { recursive: true, force: true });
}
