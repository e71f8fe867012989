// The read side of an import: every file streamed through papaparse (rowReader), every row checked
// (rowRules), and handed on in batches of plain strings: accepted rows as their record's JSON text
// and (STATE, PID) key, rejected rows with their reason. No disk writes, no shared state: it runs
// on a worker thread (readWorker.ts), where a batch crosses threads as a few strings, or on the
// calling thread when no worker can be started. The same thread also builds the dataset's per-field
// vectors (columnSet.ts) from each accepted row's values, in the order the rows arrive: it already
// holds them, so the writing thread never parses a record again.
import type { ColumnSet } from '../dataset/columnSet';
import { AppError } from '../../shared/errors';
import { fieldIndex } from '../../shared/fields';
import { RowReader } from './rowReader';
import { RowChecker } from './rowRules';
import { countLines, MisalignedCut, type FilePart } from './readShares';
import { InflatedCut } from './inflatedCut';
import { openText, readFailure, type SourceInfo } from './sourceFile';
import type { RejectedRow } from './types';

/** A row longer than this is not a row but an unclosed quote swallowing the file: the import stops. */
export const MAX_ROW_CHARS = 1024 * 1024;
/** Rows a batch holds at most (~1 KB of JSON each for full records). */
const BATCH_ROWS = 512;
/** A key: STATE (2 characters) then PID (32): keys compare as (STATE, PID) pairs do. */
export const KEY_LENGTH = 34;

const PID = fieldIndex('PID');
const STATE = fieldIndex('STATE');

export interface RowBatch {
  /** Index of the file in the import's list. */
  file: number;
  /** Data rows read (accepted + rejected). */
  read: number;
  accepted: number;
  /** The accepted rows' keys, concatenated (KEY_LENGTH characters each). */
  keys: string;
  /** The accepted rows' records as JSON.stringify(values) texts, joined by '\n' (which JSON escapes). */
  json: string;
  rejects: Array<Omit<RejectedRow, 'file'>>;
  /** Bytes of this reader's share (readShares.ts) read so far (as stored: compressed for gzip). */
  bytesRead: number;
}

export type BatchSink = (batch: RowBatch) => void | Promise<void>;

const cancelled = (): AppError => new AppError('invalid_request', 'The import was cancelled.');

/**
 * Reads a share of the input: `parts` of the files in `sources` (readShares.ts), in order.
 * `columns`: where each accepted row's values go too, in the order the rows are emitted.
 */
export async function readRows(
  sources: readonly SourceInfo[],
  parts: readonly FilePart[],
  emit: BatchSink,
  signal?: AbortSignal,
  columns?: ColumnSet,
): Promise<void> {
  let before = 0;
  for (const part of parts) before += await readPart(part, sources[part.file]!, before, emit, signal, columns);
}

/** Reads one part; says how many of the file's bytes it counts as its own (for progress). */
async function readPart(
  part: FilePart,
  info: SourceInfo,
  shareBytesBefore: number,
  emit: BatchSink,
  signal: AbortSignal | undefined,
  columns: ColumnSet | undefined,
): Promise<number> {
  const fileIndex = part.file;
  const inflated = part.inflated && new InflatedCut(part.inflated.at, part.inflated.side, info.newline);
  // A part that starts inside the file numbers its lines from there (inside a gzip file, from
  // the line breaks its cut skipped, known once its first text comes).
  let firstLine = part.start === 0 ? 1 : (await countLines(info.path, part.start)) + 1;
  // A part that stops inside the file must stop at a row's end (readShares.ts).
  const cutAtEnd = (): boolean => (inflated ? inflated.side === 'before' && inflated.found : part.end < info.size);
  const { file, text } = openText(info, part.start, part.end, inflated);
  // Compressed bytes read before a gzip part's cut belong to the other reader's progress.
  let skipped = 0;
  const checker = new RowChecker(info.map);
  const values = checker.values;
  const ready: RowBatch[] = [];
  let keys: string[] = [];
  let jsons: string[] = [];
  let batch = newBatch();
  function newBatch(): RowBatch {
    return { file: fileIndex, read: 0, accepted: 0, keys: '', json: '', rejects: [], bytesRead: 0 };
  }
  function close(): void {
    batch.keys = keys.join('');
    batch.json = jsons.join('\n');
    batch.bytesRead = shareBytesBefore + file.bytesRead - skipped;
    ready.push(batch);
    batch = newBatch();
    keys = [];
    jsons = [];
  }
  let header = part.header;
  const newReader = (): RowReader => {
    const made: RowReader = new RowReader(
      info.delimiter,
      info.newline,
      { line: firstLine, fileStart: part.start === 0 && inflated?.side !== 'after' },
      {
        row(cells, line, utf8) {
          if (header) {
            header = false;
            if (cells.length !== info.header.length || cells.some((c, k) => c !== info.header[k]))
              throw new AppError(
                'invalid_request',
                `${info.path}: the header line holds a quoted line break; write the header on one line.`,
                'files',
              );
            return;
          }
          batch.read++;
          if (!utf8) batch.rejects.push({ line, field: '', reason: 'not valid UTF-8 text', raw: made.rawRow() });
          else if (!checker.check(cells, made.upperCase))
            batch.rejects.push({ line, field: checker.field, reason: checker.reason, raw: made.rawRow() });
          else {
            keys.push((values[STATE] as string) + (values[PID] as string));
            jsons.push(JSON.stringify(values));
            columns?.push(values);
            batch.accepted++;
          }
          if (batch.read >= BATCH_ROWS) close();
        },
        broken(line, raw, reason) {
          batch.read++;
          batch.rejects.push({ line, field: '', reason, raw });
          if (batch.read >= BATCH_ROWS) close();
        },
      },
    );
    return made;
  };
  // The part after a gzip cut knows its first line once the cut is found, when its first text comes.
  let reader: RowReader | undefined = inflated?.side === 'after' ? undefined : newReader();
  const chunks = text[Symbol.asyncIterator]() as AsyncIterator<string>;
  try {
    for (let ended = false; !ended;) {
      if (signal?.aborted) throw cancelled();
      try {
        const next = await chunks.next();
        ended = next.done === true;
        if (!reader) {
          if (ended) break; // nothing after the cut, or no cut at all
          firstLine = inflated!.linesBefore + 1;
          skipped = file.bytesRead;
          reader = newReader();
        }
        if (!ended) reader.push(next.value);
        else if (!cutAtEnd()) reader.end();
        else if (reader.pending > 0) throw new MisalignedCut();
        if (reader.pending > MAX_ROW_CHARS)
          throw new AppError(
            'invalid_request',
            `${info.path}: the row starting near line ${reader.nextLine} is longer than ${MAX_ROW_CHARS / 1024 / 1024} MB; is a quote never closed?`,
            'files',
          );
      } catch (e) {
        if (signal?.aborted) throw cancelled();
        if (e instanceof MisalignedCut) throw e;
        throw readFailure(info.path, e as NodeJS.ErrnoException, reader?.nextLine ?? firstLine);
      }
      if (ended) close();
      // Batches wait for the end of a chunk: emit may wait (for a worker's credit), the parser cannot.
      for (const b of ready.splice(0)) await emit(b);
    }
  } finally {
    text.destroy();
  }
  if (!inflated) return part.end - part.start;
  return inflated.side === 'before' ? file.bytesRead : part.end - skipped;
}
