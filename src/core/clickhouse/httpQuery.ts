// One ClickHouse query and its whole text answer over Node's own HTTP(S) agent, kept alive between
// requests: what the engine's counts and pages need, and no more. The official client (connection.ts
// keeps it for streamed answers, statements and inserts) does more work for each request than a short
// query costs the server (it waits a timer tick before every request, makes a query id, an abort
// controller and a stream pipeline; docs/clickhouse.md, "Figures"), which every count and page paid.
//
// The request is the one the client sends: POST, the query in the body with `FORMAT TabSeparated`, the
// settings and `param_<name>` values in the URL (formatted as the client formats them), the user and
// password as Basic authorization. A server's error answer becomes the client's own error
// (`parseError`), so connection.ts reads it as before; a failure to connect keeps Node's error code.
import http from 'node:http';
import https from 'node:https';
import { parseError } from '@clickhouse/client';
import type { QueryParams } from './sqlValues';

export interface HttpQueryOptions {
  url: string;
  username: string;
  password: string;
  /** PEM of the CA that signed an https server's certificate, when a public CA did not. */
  ca?: Buffer;
  requestTimeoutMs: number;
  keepAlive: boolean;
  maxSockets: number;
}

/** A parameter's value as the server reads `param_<name>` (and as the official client writes it). */
export function paramText(value: string | string[]): string {
  if (Array.isArray(value)) return `[${value.map((v) => `'${escapeParam(v)}'`).join(',')}]`;
  return escapeParam(value);
}

function escapeParam(value: string): string {
  return value.replace(/[\t\n\r'\\]/g, (c) => ({ '\t': '\\t', '\n': '\\n', '\r': '\\r', "'": "\\'", '\\': '\\\\' })[c]!);
}

export class HttpQuery {
  private readonly agent: http.Agent;
  private readonly authorization: string;
  private readonly secure: boolean;

  constructor(private readonly options: HttpQueryOptions) {
    this.secure = new URL(options.url).protocol === 'https:';
    const agentOptions = { keepAlive: options.keepAlive, maxSockets: options.maxSockets };
    this.agent = this.secure
      ? new https.Agent({ ...agentOptions, ...(options.ca ? { ca: options.ca } : {}) })
      : new http.Agent(agentOptions);
    this.authorization = `Basic ${Buffer.from(`${options.username}:${options.password}`).toString('base64')}`;
  }

  /** The query's answer in TabSeparated, as text; the server's error as the official client's error. */
  text(query: string, settings: Record<string, string | number>, params: QueryParams): Promise<string> {
    const url = new URL(this.options.url);
    for (const [name, value] of Object.entries(settings)) url.searchParams.append(name, String(value));
    for (const [name, value] of Object.entries(params)) url.searchParams.append(`param_${name}`, paramText(value));
    const body = `${query}\nFORMAT TabSeparated`;
    const request = this.secure ? https.request : http.request;
    return new Promise((resolve, reject) => {
      const req = request(
        url,
        {
          method: 'POST',
          agent: this.agent,
          headers: { Authorization: this.authorization, 'Content-Length': Buffer.byteLength(body) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if (res.statusCode === 200) resolve(text);
            else reject(parseError(text));
          });
        },
      );
      req.setTimeout(this.options.requestTimeoutMs, () =>
        req.destroy(Object.assign(new Error('The ClickHouse request timed out.'), { code: 'ETIMEDOUT' })),
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
