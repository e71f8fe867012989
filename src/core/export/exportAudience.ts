// Streams every record of an audience to CSV (RFC 4180, CRLF, a header of the field names) or JSON
// Lines, in the search operation's order and shape, a batch at a time. Written under a hidden
// `.partial` name and renamed only when complete and synced, so a failed, killed or cancelled export
// never leaves a file that looks whole; the next export to the same target removes a killed one's.
import { rm } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { AppError } from '../../shared/errors';
import { partialPathFor, publishHandle, randomTag } from '../fs/atomicFile';
import { diskFullError, isDiskFull } from '../fs/diskFull';
import { createPrivateFileHandle } from '../fs/privateFile';
import { escapeRegExp, isProcessAlive, removeStaleFiles } from '../fs/staleFiles';
import { DATA_DICTIONARY } from '../../shared/dictionary';
import { CSV_HEADER, csvField, storedRecordsToCsvBytes, storedRecordsToJsonLinesBytes } from '../dataset/codec/recordFormat';
import type { Audience, AudienceEngine, RecordStream } from '../audience/contract/engine';
import { isWholeRecord, type ExportOutput } from '../../shared/exportFields';
import { columnRenderer } from './exportColumns';

export type ExportFormat = 'csv' | 'jsonl';

export interface ExportProgress {
  written: number;
  total: number;
  elapsedMs: number;
}

/** A CSV's header: the field names (the default), their labels (src/shared/dictionary.ts), or both rows, names first. */
export type ExportHeader = 'names' | 'labels' | 'both';
export const EXPORT_HEADERS: readonly ExportHeader[] = ['names', 'labels', 'both'];

const LABEL_HEADER = DATA_DICTIONARY.map((e) => csvField(e.label)).join(',');

/** The header lines of a CSV export, each ending in CRLF. */
export function csvHeader(header: ExportHeader = 'names'): string {
  if (header === 'labels') return LABEL_HEADER + '\r\n';
  return CSV_HEADER + '\r\n' + (header === 'both' ? LABEL_HEADER + '\r\n' : '');
}

export interface ExportOptions {
  format: ExportFormat;
  /** CSV only (JSON Lines has no header): 'names' unless asked. */
  header?: ExportHeader;
  /** The fields written and how coded values read (src/shared/exportFields.ts); the whole record with codes unless asked. */
  output?: ExportOutput;
  outPath: string;
  signal?: AbortSignal;
  onProgress?: (progress: ExportProgress) => void;
  /** Records per write; small values exist for tests that cancel mid-way. */
  batchSize?: number;
}

export interface ExportResult {
  path: string;
  records: number;
  bytes: number;
  seconds: number;
}

const PROGRESS_INTERVAL_MS = 200;

/** Partial files this process is writing now: never taken for stale. */
const activePartials = new Set<string>();

/**
 * Removes the partial files of earlier exports to `outPath` that no running export owns (a killed
 * or crashed process cannot clean up after itself). A partial whose writer is alive (another
 * export to the same name in another process) is left alone. Best effort: never fails an export.
 */
export async function removeStalePartials(outPath: string): Promise<string[]> {
  const pattern = new RegExp(`^\\.${escapeRegExp(basename(outPath))}\\.partial-(?:(\\d+)-)?[0-9a-f]+$`);
  // Our own pid counts as dead here: only the partials this process is writing now are live.
  const alive = (pid: number) => pid !== process.pid && isProcessAlive(pid);
  return removeStaleFiles(dirname(outPath), pattern, (path) => activePartials.has(path), alive);
}

export async function exportAudience(engine: AudienceEngine, audience: Audience, options: ExportOptions): Promise<ExportResult> {
  if (options.format !== 'csv' && options.format !== 'jsonl')
    throw new AppError('invalid_request', 'The export format is csv or jsonl.', 'format');
  return exportRecords(await engine.records(audience), options);
}

/** Writes an opened record stream (exportAudience; an export job opens it first to know its total). */
export async function exportRecords(stream: RecordStream, options: ExportOptions): Promise<ExportResult> {
  const { format, outPath, signal, onProgress, batchSize = 2000 } = options;
  const started = Date.now();
  const total = stream.total;
  await removeStalePartials(outPath);
  // The pid tells a live writer from a killed one; the random tag, two exports of this process to one name.
  const temp = partialPathFor(outPath, randomTag());
  activePartials.add(temp);
  let handle;
  try {
    handle = await createPrivateFileHandle(temp); // owner-only before the first record is written
  } catch (e) {
    activePartials.delete(temp);
    throw new AppError(
      'invalid_request',
      `Cannot write the export to ${outPath}: ${(e as NodeJS.ErrnoException).code ?? 'error'}.`,
      'outPath',
    );
  }
  let bytes = 0;
  let lastReport = 0;
  let written = 0;
  // What the write that failed would have reached: a full disk says how much the whole file needs.
  let attempted = { records: 0, bytes: 0 };
  // Each batch rendered straight into one buffer (recordFormat.ts): no string a line to join and encode.
  // Chosen fields or readable values: each record's values picked out (exportColumns.ts).
  const columns = isWholeRecord(options.output) ? null : columnRenderer(options.output!, format);
  const renderWhole = format === 'csv' ? storedRecordsToCsvBytes : storedRecordsToJsonLinesBytes;
  const into = reusedBuffer();
  const render = columns ? columns.render : (texts: readonly string[]): Buffer => renderWhole(texts, into);
  try {
    if (format === 'csv')
      bytes += (await handle.write(columns ? columns.csvHeader(options.header ?? 'names') : csvHeader(options.header))).bytesWritten;
    for await (const batch of stream.batches(batchSize)) {
      if (signal?.aborted) throw new AppError('cancelled', 'The export was cancelled.');
      const rendered = render(batch);
      attempted = { records: written + batch.length, bytes: bytes + rendered.byteLength };
      bytes += (await handle.write(rendered)).bytesWritten;
      written += batch.length;
      const now = Date.now();
      if (onProgress && now - lastReport >= PROGRESS_INTERVAL_MS) {
        lastReport = now;
        onProgress({ written, total, elapsedMs: now - started });
      }
    }
    const done = handle;
    handle = undefined;
    await publishHandle(done, temp, outPath);
  } catch (e) {
    await handle?.close().catch(() => undefined);
    await rm(temp, { force: true });
    // How far it got (progress is reported only every so often): the audit log names it for a cancelled job.
    onProgress?.({ written, total, elapsedMs: Date.now() - started });
    if (isDiskFull(e)) throw diskFullError(outPath, Math.ceil((attempted.bytes / Math.max(1, attempted.records)) * Math.max(total, 1)));
    throw e;
  } finally {
    activePartials.delete(temp);
  }
  onProgress?.({ written: total, total, elapsedMs: Date.now() - started });
  return { path: outPath, records: total, bytes, seconds: (Date.now() - started) / 1000 };
}

/**
 * One buffer an export renders each batch into, grown when a batch needs more: each batch is written
 * before the next is rendered, and a new buffer a batch (~8 MB asked, ~2.6 MB of it written for 2,000
 * records) was memory never touched before every time, ~11 µs a 4 KB page on the slower VM of
 * docs/performance.md. One export's own: two exports at once never share it.
 */
function reusedBuffer(): (size: number) => Buffer {
  let kept = Buffer.alloc(0);
  return (size) => {
    if (kept.length < size) kept = Buffer.allocUnsafeSlow(size);
    return kept;
  };
}
