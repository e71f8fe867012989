// Fetching one compressed piece of a dataset file by its key and checking it before anything is
// decompressed: a record block (blockCodec.ts) or a chunk of a field's vector (vectorChunks.ts). The
// reading thread fetches through the dataset's connection; the scan worker, sharing a read
// (inflateJob.ts), through a read-only connection of its own to the same file, opened on its first
// job and kept. The worker checks that the file at the path is still the reader's (its table of
// contents' checksum and creation time) before it reads a piece: a file replaced at that path is
// not read, and the reading thread does the work alone.
import { openSqlite, type Db, type Statement } from '../../sqlite';
import { checkedBlockSize } from '../codec/blockCodec';
import { datasetDamaged } from '../format/damage';
import { ChunkLayout, type VectorHeader } from '../codec/vectorChunks';

/**
 * Fetches a piece by its key from the file and checks it: its frame, its decompressed size, and
 * whether it is a vector chunk (which may be packed: vectorChunks.ts, inflateChunk). Throws on damage.
 */
export type PieceFetch = (key: number) => { frame: Uint8Array; size: number; chunk: boolean };

/** Which pieces a job reads and from which file: enough for the worker to open it and read them as the reader does. */
export type PieceSource =
  | { kind: 'blocks'; path: string; identity: string; records: number; perBlock: number }
  | { kind: 'chunks'; path: string; identity: string; header: VectorHeader; chunkSize: number }
  /** The stored PID order's chunks (format/pidRanks.ts): `header` is its vector's, named as the file's checksums name it. */
  | { kind: 'order'; path: string; identity: string; header: VectorHeader; chunkSize: number };

/** What identifies a dataset file's contents: its table of contents' checksum, its creation time and its records. */
export function datasetIdentity(meta: Readonly<Record<string, string>>): string {
  return JSON.stringify([meta.checksum ?? null, meta.created_at ?? null, meta.records ?? null]);
}

export const BLOCK_SQL = 'SELECT crc, data FROM record_blocks WHERE block = ?';
export const CHUNK_SQL = 'SELECT crc, data FROM vector_chunks WHERE name = ? AND chunk = ?';
export const ORDER_SQL = 'SELECT crc, data FROM pid_order WHERE chunk = ?';

/** Fetches record blocks by number (`stmt`: BLOCK_SQL): a block's frame, checked against its checksum, and its text's size. */
export function blockFetch(stmt: Statement, path: string, records: number, perBlock: number): PieceFetch {
  return (block) => {
    const row = stmt.get(block) as { crc: number; data: Uint8Array } | undefined;
    const count = Math.min(perBlock, records - block * perBlock);
    if (!row || !(count > 0))
      throw datasetDamaged(path, `the block of records ${block * perBlock} to ${(block + 1) * perBlock - 1} is missing`);
    return { frame: row.data, size: checkedBlockSize(path, { block, count, perBlock }, row.crc, row.data), chunk: false };
  };
}

/** A chunk of a field's vector as stored (`stmt`: CHUNK_SQL); one that is not there is damage. */
export function storedChunk(stmt: Statement, path: string, name: string, chunk: number): { crc: number; data: Uint8Array } {
  const stored = stmt.get(name, chunk) as { crc: number; data: Uint8Array } | undefined;
  if (!stored) throw datasetDamaged(path, `chunk ${chunk} of the vector of ${name} is missing`);
  return stored;
}

/** Fetches chunks of one field's vector by number (`stmt`: CHUNK_SQL): a chunk's frame, checked, and its values' size. */
export function chunkFetch(stmt: Statement, path: string, layout: ChunkLayout, header: VectorHeader): PieceFetch {
  return (chunk) => {
    const stored = storedChunk(stmt, path, header.name, chunk);
    return { frame: stored.data, size: layout.checked(path, header, chunk, stored), chunk: true };
  };
}

/** Fetches chunks of the stored PID order by number (`stmt`: ORDER_SQL), checked as a vector's chunks are. */
export function orderChunkFetch(stmt: Statement, path: string, layout: ChunkLayout, header: VectorHeader): PieceFetch {
  return (chunk) => {
    const stored = stmt.get(chunk) as { crc: number; data: Uint8Array } | undefined;
    if (!stored) throw datasetDamaged(path, `chunk ${chunk} of its stored PID order is missing`);
    return { frame: stored.data, size: layout.checked(path, header, chunk, stored), chunk: true };
  };
}

interface WorkerFile {
  db: Db;
  identity: string;
  blocks: Statement;
  chunks: Statement;
  /** Prepared on the first job that reads it: files written before orders were stored lack the table. */
  order?: Statement | null;
}

/** The worker's connections, one a file, kept while the file at the path is the one the jobs name. */
export class WorkerSources {
  private readonly open = new Map<string, WorkerFile>();
  /** Files found not to be the reader's (path and identity): not opened again for every job. */
  private readonly refused = new Set<string>();

  /** A fetch for a job's source, or null when the file cannot be opened or is no longer the reader's. */
  fetchFor(source: PieceSource): PieceFetch | null {
    const file = this.connection(source.path, source.identity);
    if (!file) return null;
    if (source.kind === 'blocks') return blockFetch(file.blocks, source.path, source.records, source.perBlock);
    if (source.kind === 'chunks') return chunkFetch(file.chunks, source.path, new ChunkLayout(source.chunkSize), source.header);
    file.order ??= orderStatement(file.db);
    return file.order && orderChunkFetch(file.order, source.path, new ChunkLayout(source.chunkSize), source.header);
  }

  /** Closes every connection (the worker is ending). */
  close(): void {
    for (const file of this.open.values()) file.db.close();
    this.open.clear();
  }

  private connection(path: string, identity: string): WorkerFile | null {
    const kept = this.open.get(path);
    if (kept?.identity === identity) return kept;
    const asked = JSON.stringify([path, identity]);
    if (this.refused.has(asked)) return null;
    kept?.db.close();
    this.open.delete(path);
    let db: Db | undefined;
    try {
      db = openSqlite(path, { readonly: true, fileMustExist: true });
      db.pragma('query_only = ON');
      const rows = db.prepare('SELECT key, value FROM meta').all() as Array<{ key: string; value: string }>;
      if (datasetIdentity(Object.fromEntries(rows.map((r) => [r.key, r.value]))) !== identity) throw new Error('another file');
      const file: WorkerFile = { db, identity, blocks: db.prepare(BLOCK_SQL), chunks: db.prepare(CHUNK_SQL) };
      this.open.set(path, file);
      return file;
    } catch {
      // Not readable here, or not the reader's file (replaced, or of another format): the reader reads alone.
      db?.close();
      this.refused.add(asked);
      return null;
    }
  }
}

/** ORDER_SQL prepared, or null for a file without a stored order. */
function orderStatement(db: Db): Statement | null {
  try {
    return db.prepare(ORDER_SQL);
  } catch {
    return null;
  }
}
