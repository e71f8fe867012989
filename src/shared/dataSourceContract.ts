// What the Data source operations answer the renderer (contract.ts): what answers now, what the next
// start opens, and what Test connection found. Never a password.
import type { DatasetRef } from './datasetRef';

/** The Data source screen: what answers now, what the next start opens, and the ClickHouse server kept (never its password). */
export interface DataSourceInfo {
  /** What answers now: the bundled dataset, another dataset file, a ClickHouse server, or nothing yet. */
  current: 'bundled' | 'dataset' | 'clickhouse' | 'none';
  /** What the next start opens: a dataset file (the last one used, else the bundled one) or the ClickHouse server below. */
  stored: 'embedded' | 'clickhouse';
  /** The dataset (or ClickHouse table) answering now. */
  dataset: DatasetRef | null;
  bundledAvailable: boolean;
  /**
   * The ClickHouse server last used and its fallback nodes (asked, in order, when it does not answer);
   * hasPassword says a password is stored for these addresses and this user.
   */
  clickhouse: { url: string; fallbackUrls: string[]; database: string; user: string; hasPassword: boolean } | null;
  /** Why a stored password cannot be read back (another computer's keychain, a damaged file); null when it can. */
  passwordError: string | null;
  /** Where the password is kept (the OS keychain in the desktop app, an owner-only file in browser mode). */
  secretStore: string;
  /** Why the stored ClickHouse source did not open at start; null otherwise. */
  startError: string | null;
  /**
   * The last query the ClickHouse server in use failed (its address, error code and first sentence), which API
   * clients were answered only a neutral 503 for; null when none failed or a dataset file answers.
   */
  queryError: { at: string; detail: string } | null;
}
/** What Test connection found, step by step; `error` names the first step that failed (never the password). */
export interface ClickHouseCheck {
  /** The entry node's scheme://host:port only. */
  address: string;
  /** Every node asked, the entry node first, then its fallback nodes: whether each answers /ping (scheme://host:port only). */
  nodes: Array<{ address: string; reachable: boolean }>;
  /** The node that answered the test's queries (scheme://host:port), or null when none did. */
  answeredBy: string | null;
  database: string;
  /** Some node answers /ping. */
  reachable: boolean;
  version: string | null;
  /** The user and password were accepted. */
  signedIn: boolean;
  databaseFound: boolean;
  /** The loaded dataset's tables (people and people_meta) are there. */
  tableFound: boolean;
  /** From people_meta: records loaded, when, and from which dataset file. */
  records: number | null;
  loadedAt: string | null;
  source: string | null;
  /** Whether the user is read-only (readonly != 0); a writing user gets a warning. */
  readOnly: boolean | null;
  ms: number;
  error: string | null;
  warnings: string[];
}
