import { resolve } from 'node:path';
import { normalizeAudienceRequest } from '../../shared/audienceRequest';
import { isAppError } from '../../shared/errors';
import { createCore } from '../../core/createCore';
import type { ExportFormat } from '../../core/export/exportAudience';
import { BUNDLED_DATASET_PATH } from '../bundledDataset';
import { parse, required, UsageError } from '../args';

export async function exportCommand(argv: string[]): Promise<void> {
  const { values } = parse(argv, {
    db: { type: 'string' },
    state: { type: 'string' },
    filters: { type: 'string' },
    format: { type: 'string' },
    out: { type: 'string' },
    home: { type: 'string' },
  });
  const format = required(values, 'format');
  if (format !== 'csv' && format !== 'jsonl') throw new UsageError('--format must be csv or jsonl');
  let filters: unknown = [];
  if (values.filters !== undefined) {
    try {
      filters = JSON.parse(values.filters);
    } catch {
      throw new UsageError('--filters must be a JSON array such as [["GENDER",["F"]]]');
    }
  }
  let audience;
  try {
    audience = normalizeAudienceRequest({ state: required(values, 'state'), filters });
  } catch (e) {
    if (isAppError(e)) throw new UsageError(e.message);
    throw e;
  }
  const out = resolve(required(values, 'out'));
  const core = createCore({ homeDir: values.home, datasetPath: resolve(values.db ?? BUNDLED_DATASET_PATH) });
  const controller = new AbortController();
  const cancel = () => controller.abort();
  process.once('SIGINT', cancel);
  process.once('SIGTERM', cancel);
  try {
    const result = await core.audiences.exportToFile(audience, {
      format: format as ExportFormat,
      outPath: out,
      signal: controller.signal,
      onProgress: (p) => process.stderr.write(`\rexport: ${p.written}/${p.total} records`),
    });
    process.stderr.write('\n');
    console.log(`exported ${result.records} records in ${result.seconds.toFixed(2)} s -> ${result.path}`);
  } finally {
    await core.shutdown();
  }
}
