// Generates the datasets the tests share, once per run, into a temporary folder: real SQLite files
// written by the real generator. Tests get their paths with vitest's inject().
//
// Every test of the run, and every process it starts, gets a temporary folder of its own (TMPDIR,
// which os.tmpdir() and SQLite read, set before the test processes are started). After the run
// that folder must be empty but for the shared datasets: a test that leaves a file or a folder
// behind fails the run, named, instead of filling the machine's temporary folder run after run.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
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
  const runTmp = mkdtempSync(join(tmpdir(), 'audience-desk-run-'));
  const previousTmp = process.env.TMPDIR;
  process.env.TMPDIR = runTmp;
  const dir = mkdtempSync(join(runTmp, 'audience-desk-test-'));
  const datasetPath = join(dir, 'test-dataset.sqlite');
  const tinyDatasetPath = join(dir, 'tiny-dataset.sqlite');
  generateDataset({ rows: TEST_ROWS, seed: TEST_SEED, out: datasetPath });
  // So few people that most states have none: for "a valid state with no records".
  generateDataset({ rows: TINY_ROWS, seed: TEST_SEED, out: tinyDatasetPath });
  project.provide('datasetPath', datasetPath);
  project.provide('tinyDatasetPath', tinyDatasetPath);
  project.provide('testRows', TEST_ROWS);
  return () => {
    rmSync(dir, { recursive: true, force: true });
    // tsx (tsx-<uid>), Node (node-compile-cache) and jiti (jiti, which loads the build's config
    // files) keep their compile caches there for every process they start: caches, not leftovers.
    const left = readdirSync(runTmp).filter((name) => !/^tsx-\d+$|^node-compile-cache$|^jiti$/.test(name));
    rmSync(runTmp, { recursive: true, force: true });
    if (previousTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previousTmp;
    if (left.length > 0) throw new Error(`Tests left ${left.length} entries in the temporary folder: ${left.sort().join(', ')}`);
  };
}
