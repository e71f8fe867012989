// The import's public shapes: what the CLI and the desktop app pass to importFiles and get back.
// docs/import.md describes the rules these numbers follow.
import type { ImportCounts, ImportDelimiter } from '../../shared/contract';

export type Delimiter = ImportDelimiter;
/** A file's line end, as its header line has it. */
export type Newline = '\r\n' | '\n' | '\r';

export interface ImportOptions {
  /** The vendor files, imported in this order into one dataset (a later row wins over an earlier one). */
  files: readonly string[];
  /** The dataset file to replace (or create), atomically. */
  out: string;
  /** Where the rejected rows go (CSV); `<out>.rejects.csv` by default. Always written, header-only when nothing was rejected. */
  rejectsPath?: string;
  /**
   * Follow an input that is a symbolic link (the CLI: its user typed the path). The app leaves it
   * unset: a link is refused without reading what it names, as is anything but a regular file.
   */
  followLinks?: boolean;
  /** Forces the delimiter of every file; otherwise each file's header line decides. */
  delimiter?: Delimiter;
  /** Columns the user mapped: a vendor header (any case) to the record field it fills, or '' to skip it (rowRules.ts). */
  columns?: Readonly<Record<string, string>>;
  /** Cancels the import: the previous dataset stays, every temporary file is removed. */
  signal?: AbortSignal;
  onProgress?: (progress: ImportProgress) => void;
  /** Notes for a person (unknown columns); the CLI prints them on stderr. */
  onNotice?: (message: string) => void;
}

export interface ImportProgress {
  /**
   * 'reading': parsing, checking and staging rows;
   * 'writing': building the dataset from the staged rows, in the file's order.
   */
  phase: 'reading' | 'writing';
  /** Data rows read so far (header and blank lines excluded), over all files. */
  rowsRead: number;
  /** Bytes of the files (as stored, so compressed for gzip) consumed so far. */
  bytesRead: number;
  /** Size of all the files on disk. */
  totalBytes: number;
  /** Records written into the new dataset so far (0 while reading: every row is staged first). */
  rowsWritten: number;
  /** While writing: how many records the new dataset will hold (rows imported less those replaced). */
  rowsToWrite?: number;
  /** Rows read a second while reading; records written a second while writing. */
  rowsPerSecond: number;
}

export interface FileSummary {
  path: string;
  gzip: boolean;
  delimiter: Delimiter;
  read: number;
  imported: number;
  rejected: number;
  /** Header names that are not record fields: ignored. */
  unknownColumns: string[];
}

/** The counts (ImportCounts says what each means), where the dataset and rejects went, and each file's share. */
export interface ImportSummary extends ImportCounts {
  out: string;
  rejectsPath: string;
  files: FileSummary[];
}

/** One rejected row, as the rejects file holds it. */
export interface RejectedRow {
  file: string;
  /** Physical line (1-based, header = line 1 of its file) where the row starts. */
  line: number;
  /** The field at fault (catalog name), or '' when the row as a whole is at fault. */
  field: string;
  reason: string;
  /** The row's text exactly as in the file (after decompression), without its line ending. */
  raw: string;
}
