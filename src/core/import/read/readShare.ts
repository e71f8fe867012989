// Reads one share of the input (splitInput.ts): each file part streamed and parsed into rows
// (source/rowParser.ts), each row checked (source/rowRules.ts) and serialised once, handed on in
// batches; the vectors of accepted rows are built here too when asked, in arrival order. No shared
// state and no disk writes but the vectors' spill: it runs on a worker thread (readWorker.ts) or,
// when none can start, on the calling thread. docs/import.md, "How it works".
import { AppError } from '../../../shared/errors';
import type { ColumnSet } from '../../dataset/write/columnSet';
import { RECORD_EXTRA_WORDS, recordExtras } from '../../dataset/write/recordExtras';
import { throwIfCancelled } from '../cancelled';
import { InflatedCut } from '../source/gzipCut';
import { splitSimpleLine } from '../source/quotedLines';
import { RowParser } from '../source/rowParser';
import { RowChecker } from '../source/rowRules';
import { openText, readFailure, type SourceInfo } from '../source/sourceFile';
import { BATCH_ROWS, MAX_ROW_CHARS, restart, rowKey, type Restart, type RowBatch } from './batch';
import { BatchTexts, type TextSlot } from './batchTexts';
import { countLines, type FilePart } from './splitInput';

/** Takes a batch; a Restart ends the reading (the taker cannot go on with these rows). */
export type BatchSink = (batch: RowBatch) => Restart | void | Promise<void>;

/** A share read to its end, or a cut at its end that fell inside a quoted field (restart). */
export type ShareRead = { kind: 'done' } | Restart;

/**
 * Reads a share of the input: `parts` of the files in `sources`, in order. `columns`: where each
 * accepted row's values go too, in the order the rows are emitted.
 */
export async function readShare(
  sources: readonly SourceInfo[],
  parts: readonly FilePart[],
  emit: BatchSink,
  signal?: AbortSignal,
  columns?: ColumnSet,
  /** Where the batches' texts are written (batchTexts.ts); by default each is free again once `emit` returns. */
  texts = new BatchTexts(),
): Promise<ShareRead> {
  let before = 0;
  for (const part of parts) {
    const read = await readPart(part, sources[part.file]!, before, emit, signal, columns, texts);
    if (typeof read !== 'number') return read;
    before += read;
  }
  return { kind: 'done' };
}

/** Reads one part; says how many of the file's bytes it counts as its own (for progress). */
async function readPart(
  part: FilePart,
  info: SourceInfo,
  shareBytesBefore: number,
  emit: BatchSink,
  signal: AbortSignal | undefined,
  columns: ColumnSet | undefined,
  texts: BatchTexts,
): Promise<number | Restart> {
  const fileIndex = part.file;
  const inflated = part.inflated && new InflatedCut(part.inflated.at, part.inflated.side, info.newline);
  // A part that starts inside the file numbers its lines from there (inside a gzip file, from
  // the line breaks its cut skipped, known once its first text comes).
  let firstLine = part.start === 0 ? 1 : countLines(info, part.start) + 1;
  // A part that stops inside the file must stop at a row's end (splitInput.ts).
  const cutAtEnd = (): boolean => (inflated ? inflated.side === 'before' && inflated.found : part.end < info.size);
  const { file, text } = openText(info, part.start, part.end, inflated);
  // Compressed bytes read before a gzip part's cut belong to the other reader's progress.
  let skipped = 0;
  const checker = new RowChecker(info.map);
  const values = checker.values;
  const ready: RowBatch[] = [];
  let keys: string[] = [];
  /** The batch's texts, from its first accepted row. */
  let slot: TextSlot | undefined;
  let batch = newBatch();
  const valueOf = (index: number): string | number | undefined => values[index];
  function newBatch(): RowBatch {
    const extras = new Uint32Array(BATCH_ROWS * RECORD_EXTRA_WORDS);
    return { file: fileIndex, read: 0, accepted: 0, keys: '', texts: null, textBytes: 0, extras, rejects: [], bytesRead: 0 };
  }
  function close(): void {
    batch.keys = keys.join('');
    if (slot) {
      batch.texts = slot.buffer;
      batch.textBytes = slot.used;
      texts.handedOn(slot);
      slot = undefined;
    }
    batch.bytesRead = shareBytesBefore + file.bytesRead - skipped;
    ready.push(batch);
    batch = newBatch();
    keys = [];
  }
  /** A data row `parser` is handing out, checked (`accepted`: it passed; else `utf8`: whether its text was UTF-8 at least). */
  function take(parser: RowParser, line: number, accepted: boolean, utf8: boolean): void {
    batch.read++;
    if (!utf8) batch.rejects.push({ line, field: '', reason: 'not valid UTF-8 text', raw: parser.rawRow() });
    else if (!accepted) batch.rejects.push({ line, field: checker.field, reason: checker.reason, raw: parser.rawRow() });
    else {
      keys.push(rowKey(values));
      (slot ??= texts.take()).add(JSON.stringify(values));
      recordExtras(valueOf, batch.extras, batch.accepted * RECORD_EXTRA_WORDS);
      columns?.push(values);
      batch.accepted++;
    }
    if (batch.read >= BATCH_ROWS) close();
  }
  let header = part.header;
  const newParser = (): RowParser => {
    const made: RowParser = new RowParser(
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
          take(made, line, utf8 && checker.check(cells, made.upperCase), utf8);
        },
        line(row, line, utf8) {
          if (header) {
            const cells = splitSimpleLine(row, 0, row.length, info.delimiter);
            if (cells) this.row(cells, line, utf8);
            return cells !== null;
          }
          const accepted = checker.checkRow(row, info.delimiter, made.upperCase);
          if (accepted === null) return false;
          take(made, line, utf8 && accepted, utf8);
          return true;
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
  let reader: RowParser | undefined = inflated?.side === 'after' ? undefined : newParser();
  const chunks = text[Symbol.asyncIterator]() as AsyncIterator<string>;
  try {
    for (let ended = false; !ended;) {
      throwIfCancelled(signal);
      try {
        const next = await chunks.next();
        ended = next.done === true;
        if (!reader) {
          if (ended) break; // nothing after the cut, or no cut at all
          firstLine = inflated!.linesBefore + 1;
          skipped = file.bytesRead;
          reader = newParser();
        }
        if (!ended) reader.push(next.value);
        else if (!cutAtEnd()) reader.end();
        else if (reader.pending > 0) return restart('misaligned-cut'); // a row left open at the cut
        if (reader.pending > MAX_ROW_CHARS)
          throw new AppError(
            'invalid_request',
            `${info.path}: the row starting near line ${reader.nextLine} is longer than ${MAX_ROW_CHARS / 1024 / 1024} MB; is a quote never closed?`,
            'files',
          );
      } catch (e) {
        throwIfCancelled(signal);
        throw readFailure(info.path, e as NodeJS.ErrnoException, reader?.nextLine ?? firstLine);
      }
      if (ended) close();
      // Batches wait for the end of a chunk: emit may wait (for a worker's credit), the parser cannot.
      for (const b of ready.splice(0)) {
        const verdict = await emit(b);
        texts.emitted(b.texts);
        if (verdict) return verdict;
      }
    }
  } finally {
    text.destroy();
  }
  if (!inflated) return part.end - part.start;
  return inflated.side === 'before' ? file.bytesRead : part.end - skipped;
}
