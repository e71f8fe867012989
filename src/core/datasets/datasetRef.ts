// A dataset's identity, read without changing the dataset writer: the file's name plus the time its
// writer stamped into meta (`created_at`). Another file, or the same name written again, is another
// dataset; copying a file elsewhere keeps its identity. Saved audiences and audit entries keep it.
import { basename } from 'node:path';
import type { DatasetRef } from '../../shared/contract';
import { openSqlite } from '../sqlite';

/** What the history needs of a dataset file's meta table. */
export interface DatasetFacts {
  records: number;
  createdAt: string | null;
  /** The vendor files an import read (meta `import_files`), [] otherwise. */
  sources: string[];
}

export function datasetId(path: string, createdAt: string | null): string {
  return `${basename(path)}@${createdAt ?? 'unknown'}`;
}

export function datasetRef(path: string, facts: Pick<DatasetFacts, 'records' | 'createdAt'>): DatasetRef {
  return { id: datasetId(path, facts.createdAt), name: basename(path).replace(/\.sqlite$/, ''), records: facts.records };
}

/** The facts of a dataset from its meta values (as Dataset.meta holds them). */
export function factsFromMeta(meta: Readonly<Record<string, string>>): DatasetFacts {
  let sources: string[] = [];
  try {
    const parsed = JSON.parse(meta.import_files ?? '[]') as unknown;
    if (Array.isArray(parsed)) sources = parsed.filter((s): s is string => typeof s === 'string');
  } catch {
    // a damaged note of sources is not worth refusing the dataset for
  }
  const records = Number(meta.records);
  return { records: Number.isSafeInteger(records) ? records : 0, createdAt: meta.created_at ?? null, sources };
}

/** Reads a dataset file's meta without opening it as a dataset (no vectors, no checks beyond SQLite's). */
export function readDatasetFacts(path: string): DatasetFacts {
  const db = openSqlite(path, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare('SELECT key, value FROM meta').raw().all() as Array<[string, string]>;
    return factsFromMeta(Object.fromEntries(rows));
  } finally {
    db.close();
  }
}
