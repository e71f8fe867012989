// Runs one export in its own process so its peak memory (maxRSS) is the export's alone.
// argv: <dataset> <state> <out.csv>; prints one JSON line {records, seconds, maxRssMb}.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCore } from '../src/core/createCore';
import { normalizeAudienceRequest } from '../src/shared/audienceRequest';

const [datasetPath, state, out] = process.argv.slice(2);
const home = mkdtempSync(join(tmpdir(), 'audience-desk-bench-export-'));
const core = createCore({ homeDir: home, datasetPath });
const result = await core.audiences.exportToFile(normalizeAudienceRequest({ state }), { format: 'csv', outPath: out! });
await core.shutdown();
rmSync(home, { recursive: true, force: true });
console.log(JSON.stringify({ records: result.records, seconds: result.seconds, maxRssMb: process.resourceUsage().maxRSS / 1024 }));
