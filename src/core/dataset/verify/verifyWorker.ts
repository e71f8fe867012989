// The background verify's worker thread (verify.ts): checks the whole file on its own connection
// and posts the result.
import { parentPort, workerData } from 'node:worker_threads';
import { verifyDatasetFile } from './verifyFile';

const { path } = workerData as { path: string };
parentPort!.postMessage(verifyDatasetFile(path));
