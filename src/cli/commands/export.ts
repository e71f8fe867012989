import { resolve } from 'node:path';
import { normalizeAudienceRequest } from '../../shared/audienceRequest';
import { EXPORT_VALUES, isWholeRecord, resolveExportFields, type ExportOutput, type ExportValues } from '../../shared/exportFields';
import { listControlsInput } from '../../shared/listControls';
import type { Filter } from '../../shared/contract';
import { AppError, isAppError } from '../../shared/errors';
import { createCore } from '../../core/createCore';
import { EXPORT_HEADERS, type ExportFormat, type ExportHeader } from '../../core/export/exportAudience';
import { BUNDLED_DATASET_PATH } from '../bundledDataset';
import { parse, required, UsageError } from '../args';

export async function exportCommand(argv: string[]): Promise<void> {
  const { values } = parse(argv, {
    db: { type: 'string' },
    state: { type: 'string' },
    filters: { type: 'string' },
    controls: { type: 'string' },
    header: { type: 'string' },
    fields: { type: 'string' },
    values: { type: 'string' },
    format: { type: 'string' },
    out: { type: 'string' },
    home: { type: 'string' },
  });
  const format = required(values, 'format');
  if (format !== 'csv' && format !== 'jsonl') throw new UsageError('--format must be csv or jsonl');
  const header = (values.header ?? 'names') as ExportHeader;
  if (!EXPORT_HEADERS.includes(header)) throw new UsageError('--header must be names, labels or both');
  const valueMode = (values.values ?? 'codes') as ExportValues;
  if (!EXPORT_VALUES.includes(valueMode)) throw new UsageError('--values must be codes or labels');
  // --fields mailing, --fields phone, --fields full, or record field names: FNAME,LNAME,ZIP (presets mix in too).
  let output: ExportOutput;
  try {
    output = { fields: resolveExportFields(values.fields?.split(',').filter((f) => f.trim() !== '')), values: valueMode };
  } catch (e) {
    if (isAppError(e)) throw new UsageError(`--fields: ${e.message}`);
    throw e;
  }
  let filters: unknown = [];
  if (values.filters !== undefined) {
    try {
      filters = JSON.parse(values.filters);
    } catch {
      throw new UsageError('--filters must be a JSON array such as [["GENDER",["F"]]]');
    }
  }
  // extensions.md's list controls, as the JSON object of their request keys.
  let controls: object = {};
  if (values.controls !== undefined) {
    try {
      controls = JSON.parse(values.controls) as object;
    } catch {
      throw new UsageError('--controls must be a JSON object such as {"households":"one","contact":{"phone":"callable"}}');
    }
    if (typeof controls !== 'object' || controls === null || Array.isArray(controls))
      throw new UsageError('--controls must be a JSON object such as {"households":"one","contact":{"phone":"callable"}}');
  }
  let audience;
  try {
    audience = normalizeAudienceRequest({ ...controls, state: required(values, 'state'), filters });
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
    // An export job, as the app's: audited (actor CLI) and, once done, remembered for `exclude: ["export:<id>"]`.
    const started = Date.now();
    const definition = {
      state: audience.state,
      filters: filters as Filter[],
      ...listControlsInput(audience.listControls),
      ...(isWholeRecord(output) ? {} : { output }),
    };
    const job = await core.audiences
      .startExport(audience, { definition, format: format as ExportFormat, header, path: out, actor: 'CLI' })
      .catch((e: unknown) => {
        // What the request names and the dataset does not hold (a ZIP of another state, an unknown id) is a bad argument.
        throw isAppError(e) && e.code === 'invalid_request' ? new UsageError(e.message) : e;
      });
    controller.signal.addEventListener('abort', () => core.exportJobs.cancel(job.id));
    const progress = setInterval(() => {
      const p = core.exportJobs.status(job.id);
      process.stderr.write(`\rexport: ${p.written}/${p.total} records`);
    }, 200);
    const result = await core.exportJobs.settled(job.id).finally(() => clearInterval(progress));
    process.stderr.write(`\rexport: ${result.written}/${result.total} records\n`);
    if (result.status === 'cancelled') throw new AppError('cancelled', 'The export was cancelled.');
    if (result.status !== 'done') throw new AppError('internal_error', result.error ?? 'The export failed.');
    console.log(`exported ${result.total} records in ${((Date.now() - started) / 1000).toFixed(2)} s -> ${result.path}`);
  } finally {
    await core.shutdown();
  }
}
