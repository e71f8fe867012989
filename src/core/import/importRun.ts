// One import, as phases that read top to bottom: read (every row staged, on two readers), write
// (the staged rows in the file's order, households together with each record's PID rank; their
// vectors put in that order beside), publish (rejects file and dataset, atomically). A reading
// pass whose cut fell inside a quoted field returns a restart, and one reader reads every row again.
// docs/import.md, "How it works".
import { basename } from 'node:path';
import { rmSync } from 'node:fs';
import { AppError } from '../../shared/errors';
import { needsRebuild } from '../dataset/write/columnOrder';
import { buildStringColumn } from '../dataset/write/columnSet';
import type { BuiltColumn } from '../dataset/codec/columnVector';
import { DatasetWriter } from '../dataset/write/datasetWriter';
import type { SpilledColumn } from '../dataset/write/vectorSpill';
import { loadEncodedColumns, type EncodedColumn } from '../dataset/write/encodedColumn';
import { VECTOR_CHUNK } from '../dataset/codec/vectorChunks';
import { throwIfCancelled } from './cancelled';
import { startFinalOrder, type FinalOrder } from './order/finalOrder';
import { ProgressReporter, rate } from './progress';
import type { Restart, RowBatch } from './read/batch';
import { runReaders } from './read/runReaders';
import { planShares, wholeFiles, type FilePart } from './read/splitInput';
import type { SourceInfo } from './source/sourceFile';
import { Staging } from './stage/staging';
import { compressStagedTexts } from './stage/stagingForm';
import { stagingPathFor } from './tempFiles';
import type { FileSummary, ImportProgress, ImportSummary } from './types';
import { RejectsFile } from './write/rejectsFile';

/** Staged records written between two looks at a cancel. */
const RUN_LENGTH = 20_000;

export interface RunPlan {
  out: string;
  rejectsPath: string;
  /** Every input file, recognised (source/sourceFile.ts). */
  sources: SourceInfo[];
  signal?: AbortSignal;
  onProgress?: (progress: ImportProgress) => void;
  onNotice?: (message: string) => void;
  /** When the import started (performance.now()), for the summary's seconds. */
  started: number;
}

/** What the read phase leaves: the rows staged, with their vectors by reader. */
interface Read {
  staging: Staging;
  columns: SpilledColumn[][];
}

/** What the write phase leaves for publishing. */
interface Written {
  writer: DatasetWriter;
  /** The vectors of the records, one field at a time. */
  columns: Iterable<BuiltColumn | EncodedColumn>;
  /** When the writing started. */
  since: number;
}

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class ImportRun {
  private readonly counts = { read: 0, imported: 0, rejected: 0 };
  private readonly files: FileSummary[];
  private readonly totalBytes: number;
  private readonly metadata: Record<string, string>;
  private readonly rejects: RejectsFile;
  private readonly progress: ProgressReporter;
  /** Bytes of its share each reader of the current pass has consumed. */
  private readerBytes: number[] = [];
  private passStarted = 0;
  // What a failure must abandon and the end must remove.
  private staging: Staging | undefined;
  private writer: DatasetWriter | undefined;
  private finalOrder: FinalOrder | undefined;
  private readonly spills: string[] = [];

  constructor(private readonly plan: RunPlan) {
    const { sources } = plan;
    this.files = sources.map((s) => ({
      path: s.path,
      gzip: s.gzip,
      delimiter: s.delimiter,
      read: 0,
      imported: 0,
      rejected: 0,
      unknownColumns: s.map.unknown,
    }));
    this.totalBytes = sources.reduce((sum, s) => sum + s.size, 0);
    this.metadata = { source: 'import', import_files: JSON.stringify(sources.map((s) => basename(s.path))) };
    this.progress = new ProgressReporter(plan.onProgress, this.totalBytes);
    this.rejects = new RejectsFile(plan.rejectsPath);
  }

  async run(): Promise<ImportSummary> {
    this.noticeUnknownColumns();
    try {
      const read = await this.read();
      this.reportReading(true);
      throwIfCancelled(this.plan.signal);
      const { replaced, records } = read.staging.dedupe();
      this.refuseIfNothingImported();
      const written = await this.writeStaged(read, records, replaced);
      throwIfCancelled(this.plan.signal);
      await this.publish(written, records);
      const { out, rejectsPath } = this.plan;
      const seconds = Math.round(performance.now() - this.plan.started) / 1000;
      return { ...this.counts, replaced, records, seconds, out, rejectsPath, files: this.files };
    } catch (e) {
      this.writer?.abort();
      this.rejects.discard();
      throw e;
    } finally {
      await this.cleanUp();
    }
  }

  // ---- read ------------------------------------------------------------------------------------

  /**
   * Reads every row once, or twice when the cut between the two readers fell inside a quoted field.
   * Rows that came in (STATE, PID) order are staged too: the file's order is by household
   * (docs/import.md, "How it works").
   */
  private async read(): Promise<Read> {
    const { sources } = this.plan;
    const halves = await this.readStaged(planShares(sources, 2));
    if (!('kind' in halves)) return halves;
    // The cut between the halves fell inside a quoted field: one reader, which has no cut.
    const whole = await this.readStaged([wholeFiles(sources)]);
    if ('kind' in whole) throw new Error('A single reader was told its cut was misaligned.');
    return whole;
  }

  /** Every row into the staging file, each reader building the vectors of the rows it accepts. */
  private async readStaged(shares: FilePart[][]): Promise<Read | Restart> {
    this.startPass();
    this.staging?.dispose();
    const stagingPath = stagingPathFor(this.plan.out);
    const staging = (this.staging = new Staging(stagingPath, compressStagedTexts(this.plan.sources, stagingPath)));
    const columns: SpilledColumn[][] = [];
    const pass = await runReaders(
      this.plan.sources,
      shares,
      (batch, reader) => {
        this.take(batch, reader);
        if (batch.accepted > 0)
          staging.add(reader, batch.keys, new Uint8Array(batch.texts!, 0, batch.textBytes), batch.extras, batch.accepted);
        this.reportReading(false);
      },
      {
        signal: this.plan.signal,
        // Each pass gets its own spill names, so no file of an abandoned pass is written again.
        vectors: { spillPath: (reader) => this.spillPath(`r${reader}`), onColumns: (built, reader) => (columns[reader] = built) },
      },
    );
    return pass.kind === 'restart' ? pass : { staging, columns };
  }

  /** A new pass forgets what the one before it counted and rejected. */
  private startPass(): void {
    this.rejects.reset();
    this.counts.read = this.counts.imported = this.counts.rejected = 0;
    for (const f of this.files) f.read = f.imported = f.rejected = 0;
    this.readerBytes = [];
    this.passStarted = performance.now();
  }

  /** A batch's counts and rejected rows (its accepted rows are the pass's). */
  private take(batch: RowBatch, reader: number): void {
    throwIfCancelled(this.plan.signal);
    const file = this.files[batch.file]!;
    for (const r of batch.rejects) this.rejects.add({ file: file.path, ...r }, reader);
    this.counts.read += batch.read;
    this.counts.imported += batch.accepted;
    this.counts.rejected += batch.rejects.length;
    file.read += batch.read;
    file.imported += batch.accepted;
    file.rejected += batch.rejects.length;
    this.readerBytes[reader] = batch.bytesRead;
  }

  private reportReading(end: boolean): void {
    this.progress.report(
      {
        phase: 'reading',
        rowsRead: this.counts.read,
        bytesRead: end ? this.totalBytes : this.readerBytes.reduce((sum, b) => sum + b, 0),
        rowsWritten: 0,
        rowsPerSecond: rate(this.counts.read, this.passStarted),
      },
      end,
    );
  }

  private refuseIfNothingImported(): void {
    if (this.counts.imported > 0) return;
    this.rejects.publish(); // it says why
    const { read } = this.counts;
    throw new AppError(
      'invalid_request',
      read === 0
        ? 'The files hold no rows; the dataset was not replaced.'
        : `None of the ${read} rows could be imported (see ${this.plan.rejectsPath}); the dataset was not replaced.`,
      'files',
    );
  }

  // ---- write -----------------------------------------------------------------------------------

  /** The staged records, one per PID, in the file's order; their vectors put in that order on a worker meanwhile. */
  private async writeStaged(read: Read, records: number, replaced: number): Promise<Written> {
    const { staging } = read;
    const byField = fieldParts(read.columns, staging.readerCounts);
    // Shared with the worker that puts the vectors in this order while the records are written.
    const order = new Uint32Array(new SharedArrayBuffer(records * 4));
    staging.order(order);
    // (Rare) a field that cannot be merged exactly is built again from the staged records.
    const rebuild = [...byField].filter(([, parts]) => needsRebuild(parts, replaced > 0)).map(([field]) => field);
    this.finalOrder = startFinalOrder({
      fields: [...byField].filter(([field]) => !rebuild.includes(field)),
      order,
      outPath: this.spillPath('final'),
      chunkSize: VECTOR_CHUNK,
    });
    const writer = (this.writer = new DatasetWriter(this.plan.out, this.metadata));
    const started = performance.now();
    for (const record of staging.records()) {
      writer.appendBytes(record); // households together, each with its PID rank
      if (writer.count % RUN_LENGTH !== 0 && writer.count !== records) continue;
      await yieldToEventLoop(); // lets a cancel (or a signal handler) in
      throwIfCancelled(this.plan.signal);
      this.reportWriting(writer.count, records, started);
    }
    if (writer.count !== records) throw new Error(`${writer.count} records were written of ${records} staged.`);
    const rebuilt = rebuild.map((field) => buildStringColumn(field, staging.fieldValues(field)));
    const ordered = await this.finalOrder.columns;
    const columns = (function* () {
      yield* rebuilt;
      yield* loadEncodedColumns(ordered); // one field at a time, as the writer takes them
    })();
    return { writer, columns, since: started };
  }

  private reportWriting(written: number, records: number, since: number, end = false): void {
    this.progress.report(
      {
        phase: 'writing',
        rowsRead: this.counts.read,
        bytesRead: this.totalBytes,
        rowsWritten: written,
        rowsToWrite: records,
        rowsPerSecond: rate(written, since),
      },
      end,
    );
  }

  // ---- publish ---------------------------------------------------------------------------------

  /** The rejects file completed first (a full disk fails there, before the dataset is replaced), then the dataset, then the rejects file. */
  private async publish({ writer, columns, since }: Written, records: number): Promise<void> {
    const stagingGone = this.staging?.disposeInBackground();
    this.rejects.complete();
    writer.finish(columns);
    this.rejects.publish();
    await stagingGone;
    this.reportWriting(writer.count, records, since, true);
  }

  private async cleanUp(): Promise<void> {
    await this.finalOrder?.stop();
    this.staging?.dispose();
    for (const path of this.spills) rmSync(path, { force: true });
  }

  private spillPath(name: string): string {
    const path = `${this.plan.out}.building-${process.pid}-vectors-${this.spills.length}${name}`;
    this.spills.push(path);
    return path;
  }

  private noticeUnknownColumns(): void {
    for (const f of this.files) {
      const n = f.unknownColumns.length;
      if (n > 0) this.plan.onNotice?.(`${f.path}: ignored ${n} unknown column${n > 1 ? 's' : ''}: ${f.unknownColumns.join(', ')}`);
    }
  }
}

/**
 * Each field's vectors as the readers built them, one part a reader in reader order (each
 * reader's arrivals follow the previous reader's); `readerCounts` (the staging's rows by reader)
 * checks that they cover the rows staged.
 */
function fieldParts(sets: readonly SpilledColumn[][], readerCounts: readonly number[]): Map<number, SpilledColumn[]> {
  const byField = new Map<number, SpilledColumn[]>();
  for (const set of sets)
    for (const column of set) (byField.get(column.field) ?? byField.set(column.field, []).get(column.field)!).push(column);
  for (const parts of byField.values()) {
    const lengths = parts.map((p) => p.length);
    const covers = lengths.length >= readerCounts.length && lengths.every((n, k) => n === (readerCounts[k] ?? 0));
    if (!covers) throw new Error(`The vectors built while reading cover ${lengths.join('+')} rows; ${readerCounts.join('+')} were staged.`);
  }
  return byField;
}
