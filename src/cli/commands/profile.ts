// `cli profile`: the profile of an audience (docs/insight.md) written to a file, atomically: JSON (the
// API's answer) for a name ending .json, CSV (one row a value) for .csv. One summary line on stdout.
import { writeFileSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { publishFile, partialPathFor } from '../../core/fs/atomicFile';
import { isAppError } from '../../shared/errors';
import { normalizeProfileRequest, profileCsv } from '../../shared/profile';
import { BUNDLED_DATASET_PATH } from '../bundledDataset';
import { parse, required, UsageError } from '../args';
import { withCore } from '../withCore';

/** A JSON argument, or a UsageError with an example. */
function jsonArgument(text: string | undefined, name: string, example: string, fallback: unknown): unknown {
  if (text === undefined) return fallback;
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`--${name} must be JSON such as ${example}`);
  }
}

export async function profileCommand(argv: string[]): Promise<void> {
  const { values } = parse(argv, {
    db: { type: 'string' },
    state: { type: 'string' },
    filters: { type: 'string' },
    controls: { type: 'string' },
    fields: { type: 'string' },
    out: { type: 'string' },
    home: { type: 'string' },
  });
  const out = resolve(required(values, 'out'));
  const format = extname(out).toLowerCase();
  if (format !== '.json' && format !== '.csv') throw new UsageError('--out must end in .json or .csv (the format follows the name)');
  const filters = jsonArgument(values.filters, 'filters', '[["GENDER",["F"]]]', []);
  const controls = jsonArgument(values.controls, 'controls', '{"include":["list:ab12"]}', {});
  if (typeof controls !== 'object' || controls === null || Array.isArray(controls))
    throw new UsageError('--controls must be a JSON object such as {"include":["list:ab12"]}');
  const fields = values.fields
    ?.split(',')
    .map((f) => f.trim())
    .filter((f) => f !== '');
  let request;
  try {
    request = normalizeProfileRequest({ ...controls, state: required(values, 'state'), filters, ...(fields ? { fields } : {}) });
  } catch (e) {
    if (isAppError(e)) throw new UsageError(e.message);
    throw e;
  }
  const datasetPath = resolve(values.db ?? BUNDLED_DATASET_PATH);
  await withCore({ homeDir: values.home, datasetPath }, async (core) => {
    const answer = await core.audiences.profile(request.audience, request.fields).catch((e: unknown) => {
      // An unknown saved audience, list or export, or a seed too small, is a bad argument.
      throw isAppError(e) && e.code === 'invalid_request' ? new UsageError(e.message) : e;
    });
    const { ms, ...profile } = answer;
    const text = format === '.json' ? `${JSON.stringify(profile)}\n` : profileCsv(profile);
    const partial = partialPathFor(out);
    writeFileSync(partial, text, { mode: 0o600 });
    publishFile(partial, out);
    console.log(
      `profiled ${profile.total} of ${profile.base.total} people by ${profile.fields.length} fields in ${(ms / 1000).toFixed(2)} s -> ${out}`,
    );
  });
}
