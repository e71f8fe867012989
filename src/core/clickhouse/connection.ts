// One ClickHouse server over HTTP(S) with the official client: text answers (TabSeparated, which
// every server version writes), streamed answers, commands and TabSeparated inserts. Credentials go to the
// client and nowhere else: no message this module makes names them, the client's own logging is
// off (it would print its settings), and a URL carrying a user or password is refused, so they
// cannot reach a log through it.
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { ClickHouseLogLevel, createClient, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client';
import { AppError } from '../../shared/errors';
import { HttpQuery } from './httpQuery';
import { TsvLineSplitter, tsvRows } from './tsv';
import { isPlainIdentifier } from './sqlLiteral';
import type { QueryParams } from './sqlValues';

export interface ClickHouseCredentials {
  username: string;
  password: string;
}

export interface ClickHouseTarget {
  /** http(s)://host:port of the server's HTTP interface. */
  url: string;
  /** The database that holds the dataset's tables. */
  database: string;
  credentials: ClickHouseCredentials | null;
  /**
   * For https: a PEM file of the CA that signed the server's certificate, when a public CA did not
   * (a company's own CA). Without it the certificate must chain to Node's bundled public roots.
   */
  caCertificate?: string;
  /**
   * Other nodes of the same cluster that answer the same way (each has the Distributed table and the
   * metadata): a request the entry node does not answer at all goes to the next of these.
   */
  fallbackUrls?: string[];
}

export const DEFAULT_DATABASE = 'audience_desk';

const STALE_SOCKET = new Set(['ECONNRESET', 'EPIPE']);
/** Node's codes for a server that does not answer at all (stopped, unreachable): another node is asked. */
const NO_ANSWER = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'ECONNABORTED']);

// A request's values are SQL literals (sqlLiteral.ts): a big IN list must fit in the query.
const QUERY_SETTINGS = { max_query_size: '67108864' } satisfies ClickHouseSettings;
const REQUEST_TIMEOUT_MS = 300_000;
const MAX_SOCKETS = 16;

/** The address to show in messages: scheme, host and port only. */
export function shownAddress(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return 'the ClickHouse address';
  }
}

/**
 * A fallback address as an error names it: as typed, but never a user or password typed into it (an
 * address with an @ is named as scheme://host:port, or from the @ on when it does not parse).
 */
function namedAddress(text: string): string {
  let shown = text;
  if (text.includes('@')) {
    let host = '';
    try {
      const u = new URL(text);
      host = u.host && `${u.protocol}//${u.host}`;
    } catch {
      /* not a URL: from the @ on, below */
    }
    shown = host || text.replace(/^.*@/, '…@');
  }
  return shown.length > 80 ? `${shown.slice(0, 80)}…` : shown;
}

/** Why `url` is no ClickHouse address (the same rules for the entry node and its fallbacks), or null. */
function addressProblem(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'must be a URL such as http://127.0.0.1:8123';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'must start with http:// or https://';
  if (u.username || u.password) return 'must not hold the user or password: put them in the credentials';
  return null;
}

/** Checks a target's URL, fallback nodes and database name; a clear invalid_request otherwise. */
export function checkTarget(target: ClickHouseTarget): void {
  let u: URL;
  try {
    u = new URL(target.url);
  } catch {
    throw new AppError('invalid_request', 'The ClickHouse address must be a URL such as http://127.0.0.1:8123.', 'url');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new AppError('invalid_request', 'The ClickHouse address must start with http:// or https://.', 'url');
  if (u.username || u.password)
    throw new AppError('invalid_request', 'Put the ClickHouse user and password in the credentials, not in the address.', 'url');
  checkFallbackUrls(target.url, target.fallbackUrls ?? []);
  if (!isPlainIdentifier(target.database))
    throw new AppError('invalid_request', 'The ClickHouse database name may hold only letters, digits and underscores.', 'database');
}

/** Each fallback node by the entry node's rules, named in the error; a node given twice (or the entry node again) is a mistake. */
function checkFallbackUrls(entry: string, fallbackUrls: readonly string[]): void {
  const seen = new Set([new URL(entry).href]);
  for (const url of fallbackUrls) {
    const problem = addressProblem(url);
    if (problem) throw new AppError('invalid_request', `The fallback node address ${namedAddress(url)} ${problem}.`, 'fallbackUrls');
    const href = new URL(url).href;
    if (seen.has(href))
      throw new AppError(
        'invalid_request',
        `The fallback node address ${namedAddress(url)} is named twice (or is the address itself): give each node once.`,
        'fallbackUrls',
      );
    seen.add(href);
  }
}

/** Every node a target names: the entry node first, then its fallbacks in order. */
export function nodeUrls(target: Pick<ClickHouseTarget, 'url' | 'fallbackUrls'>): string[] {
  return [target.url, ...(target.fallbackUrls ?? [])];
}

// Node's codes for a certificate the client does not trust or that names another host.
const TLS_CODES = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** The CA file's certificates, or a clear error naming the file (never its contents). */
function readCaCertificate(path: string): Buffer {
  let pem: Buffer;
  try {
    pem = readFileSync(path);
  } catch {
    throw new AppError('invalid_request', `The CA certificate file ${path} cannot be read.`, 'caCertificate');
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----'))
    throw new AppError('invalid_request', `The CA certificate file ${path} holds no PEM certificate.`, 'caCertificate');
  return pem;
}

/**
 * A readable error for a failed request: the server's error code and first sentence, or the address it could not reach.
 * Marked as the server's (fromClickHouse): fine for the CLI and the Data source screen, which an administrator reads,
 * but an engine serving API clients replaces it with a neutral answer (servingErrors.ts).
 */
function failure(error: unknown, url: string): AppError {
  return Object.assign(describeFailure(error, url), { fromClickHouse: true });
}

function describeFailure(error: unknown, url: string): AppError {
  const e = error as { code?: string; message?: string };
  const message = String(e?.message ?? error);
  const serverCode = /Code: (\d+)/.exec(message)?.[1] ?? (typeof e?.code === 'string' && /^\d+$/.test(e.code) ? e.code : undefined);
  if (serverCode === '516' || serverCode === '192' || serverCode === '193' || /password|Authentication/i.test(message))
    return new AppError('unavailable', `ClickHouse at ${shownAddress(url)} refused the user or password.`);
  if (serverCode) {
    // The server's text after the code, first line, without anything quoted from the query.
    const text = /DB::Exception: (.*?)(?:, e\.what\(\)|\n|$)/.exec(message)?.[1] ?? 'an error';
    const clipped = text.replace(/'[^']*'/g, "'…'").slice(0, 200);
    return Object.assign(new AppError('unavailable', `ClickHouse at ${shownAddress(url)} answered error ${serverCode}: ${clipped}`), {
      clickhouseCode: Number(serverCode),
    });
  }
  if (typeof e?.code === 'string' && TLS_CODES.has(e.code))
    return new AppError(
      'unavailable',
      `ClickHouse at ${shownAddress(url)} showed a certificate this computer does not trust (${e.code}): ` +
        'give the CA certificate that signed it (--ca-cert FILE).',
    );
  return new AppError('unavailable', `ClickHouse at ${shownAddress(url)} did not answer (${(e?.code as string) ?? 'no connection'}).`);
}

/** Whether an error is a failure of this module (its message names the server's address and may quote its error). */
export function isClickHouseFailure(error: unknown): error is AppError {
  return (error as { fromClickHouse?: boolean })?.fromClickHouse === true;
}

/** The ClickHouse error code of a failure from this module, if the server sent one. */
export function clickhouseCode(error: unknown): number | undefined {
  return (error as { clickhouseCode?: number })?.clickhouseCode;
}

export class ClickHouseConnection {
  /** One client a node: the entry node's first, then the fallbacks'. */
  private readonly clients: ClickHouseClient[];
  /** Each node's short queries (text, rows), on Node's own kept-alive agent (httpQuery.ts). */
  private readonly queries: HttpQuery[];
  private readonly urls: string[];
  /** The node that answered last; requests go there first. */
  private current = 0;
  readonly database: string;

  constructor(target: ClickHouseTarget, options: { requestTimeoutMs?: number; keepAlive?: boolean } = {}) {
    checkTarget(target);
    this.urls = nodeUrls(target);
    this.database = target.database;
    this.clients = this.urls.map((url) => this.newClient(target, url, options));
    const ca = target.caCertificate ? readCaCertificate(target.caCertificate) : undefined;
    this.queries = this.urls.map(
      (url) =>
        new HttpQuery({
          url,
          username: target.credentials?.username ?? 'default',
          password: target.credentials?.password ?? '',
          ...(ca ? { ca } : {}),
          requestTimeoutMs: options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
          keepAlive: options.keepAlive ?? true,
          maxSockets: MAX_SOCKETS,
        }),
    );
  }

  /** The address of the node requests go to now. */
  get url(): string {
    return this.urls[this.current]!;
  }

  private newClient(target: ClickHouseTarget, url: string, options: { requestTimeoutMs?: number; keepAlive?: boolean }): ClickHouseClient {
    return createClient({
      url,
      username: target.credentials?.username ?? 'default',
      password: target.credentials?.password ?? '',
      request_timeout: options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
      log: { level: ClickHouseLogLevel.OFF },
      clickhouse_settings: QUERY_SETTINGS,
      max_open_connections: MAX_SOCKETS,
      // A load pauses between requests while it reads records; a fresh socket per request there
      // cannot be one the server closed meanwhile.
      keep_alive: { enabled: options.keepAlive ?? true },
      ...(target.caCertificate ? { tls: { ca_cert: readCaCertificate(target.caCertificate) } } : {}),
    });
  }

  private async run<T>(work: (client: ClickHouseClient, query: HttpQuery) => Promise<T>, retry = false, tried = 0): Promise<T> {
    const node = this.current;
    try {
      return await work(this.clients[node]!, this.queries[node]!);
    } catch (error) {
      const code = (error as { code?: string })?.code ?? '';
      // A node that does not answer at all: the next node is asked (a read, or any request before it was sent).
      if (NO_ANSWER.has(code) && (retry || code === 'ECONNREFUSED') && tried + 1 < this.clients.length) {
        if (this.current === node) this.current = (node + 1) % this.clients.length;
        return this.run(work, retry, tried + 1);
      }
      // A kept-alive socket the server closed while idle fails at once: a read is asked again on a new one.
      if (retry && STALE_SOCKET.has(code) && this.clients.length === 1) return this.run(work);
      throw failure(error, this.urls[node]!);
    }
  }

  /** A query's TabSeparated answer as text; `params`: the values of its placeholders (sqlValues.ts), if any. */
  text(query: string, settings: Record<string, string | number> = {}, params: QueryParams = {}): Promise<string> {
    return this.run((_, http) => http.text(query, { ...QUERY_SETTINGS, ...settings }, params), true);
  }

  /** A query's rows, fields still TSV-escaped. */
  async rows(query: string, settings: Record<string, string | number> = {}, params: QueryParams = {}): Promise<string[][]> {
    return tsvRows(await this.text(query, settings, params));
  }

  /** A query's rows as they arrive, a chunk of rows at a time (fields still TSV-escaped). */
  async *streamRows(query: string, params: QueryParams = {}): AsyncIterable<string[][]> {
    const query_params = Object.keys(params).length ? params : undefined;
    const result = await this.run((client) => client.exec({ query: `${query} FORMAT TabSeparated`, query_params }), true);
    const splitter = new TsvLineSplitter();
    const decoder = new TextDecoder();
    try {
      for await (const chunk of result.stream as AsyncIterable<Buffer>) {
        const rows = splitter.push(decoder.decode(chunk, { stream: true }));
        if (rows.length) yield rows;
      }
    } catch (error) {
      throw failure(error, this.url);
    }
    const rest = splitter.push(decoder.decode());
    if (rest.length) yield rest;
    const last = splitter.end();
    if (last.length) yield last;
  }

  /** A statement without an answer (CREATE, RENAME, DROP). */
  async command(query: string, settings: ClickHouseSettings = {}): Promise<void> {
    await this.run((client) => client.command({ query, clickhouse_settings: settings }));
  }

  /** Inserts TabSeparated lines (tsvLine.ts, tsvBytes.ts) into a table (qualified name), as one streamed request. */
  async insertTsv(table: string, lines: AsyncIterable<string | Buffer>, settings: ClickHouseSettings = {}): Promise<void> {
    const stream = Readable.from(lines, { objectMode: false });
    await this.run((client) => client.insert({ table, values: stream, format: 'TabSeparated', clickhouse_settings: settings }));
  }

  /** Whether the server answers /ping and the credentials are accepted (a trivial query). */
  async check(): Promise<{ version: string }> {
    const version = (await this.text('SELECT version()')).trim();
    return { version };
  }

  async close(): Promise<void> {
    for (const query of this.queries) query.close();
    await Promise.all(this.clients.map((client) => client.close()));
  }
}
