// An HTTP/1.1 client for latency figures that reads every answer into memory it keeps, as load
// generators do (wrk reads into one buffer a connection): no new buffer a chunk and no garbage a
// request, so the client's own allocations and collections stay out of the server's times. On the
// VM of docs/performance.md (29 November), sending a static 0.8 MB answer over loopback measured
// p95 11-12 ms with node:http collecting chunks and 3.8-4.1 ms read this way, a JSON.parse of each
// answer after its clock included. One connection, kept alive; one request at a time; answers
// must state their Content-Length (the server's JSON answers do), anything else is an error.
import { connect, type Socket } from 'node:net';

/** A request's answer: its status, the time to its last byte, and its body (valid until the next request). */
export interface KeptAnswer {
  status: number;
  ms: number;
  body: Buffer;
}

const HEAD_END = Buffer.from('\r\n\r\n');

/**
 * Memory the client keeps, written once before any request: a first write to a page is a fault
 * (~11-22 µs a page on the VM of docs/performance.md), and a new client's first answer of 25 records
 * (~0.2 MB) wrote ~110 fresh pages of these buffers inside the server's very first request's time
 * (that request measured 3-6 ms slower by this client than by the server's own clock, later ones ~1 ms).
 */
function writtenAhead(bytes: number): Buffer {
  return Buffer.allocUnsafeSlow(bytes).fill(0);
}

export class KeptBufferClient {
  /** The answer being read (head, then body), grown only when an answer is larger than any before. */
  private answer = writtenAhead(4 * 1024 * 1024);
  private used = 0;
  private bodyAt = -1;
  private bodyLength = 0;
  private status = 0;
  private started = 0;
  private pending: { resolve: (a: KeptAnswer) => void; reject: (e: Error) => void } | undefined;

  private constructor(
    private readonly socket: Socket,
    private readonly host: string,
    /** What the socket reads into, every time. */
    private readonly chunk: Buffer,
  ) {}

  /** A connection to `url`'s host and port. */
  static connect(url: string): Promise<KeptBufferClient> {
    const { hostname, port } = new URL(url);
    const chunk = writtenAhead(256 * 1024);
    const reading: { client?: KeptBufferClient } = {};
    const socket = connect({
      host: hostname,
      port: Number(port),
      noDelay: true,
      onread: {
        buffer: chunk,
        callback: (n: number) => {
          reading.client!.received(n);
          return true;
        },
      },
    });
    const client = (reading.client = new KeptBufferClient(socket, `${hostname}:${port}`, chunk));
    return new Promise((resolve, reject) => {
      socket.once('connect', () => resolve(client));
      socket.once('error', (e) => (client.pending ? client.fail(e) : reject(e)));
      socket.once('close', () => client.fail(new Error('the server closed the connection')));
    });
  }

  /** POSTs `payload` to `path`; the clock runs from the write to the answer's last byte. */
  post(path: string, headers: Record<string, string>, payload: Buffer): Promise<KeptAnswer> {
    if (this.pending) return Promise.reject(new Error('one request at a time'));
    const head =
      `POST ${path} HTTP/1.1\r\nHost: ${this.host}\r\nContent-Length: ${payload.length}\r\n` +
      Object.entries(headers)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('') +
      '\r\n';
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.used = 0;
      this.bodyAt = -1;
      this.started = performance.now();
      this.socket.write(Buffer.concat([Buffer.from(head, 'latin1'), payload]));
    });
  }

  close(): void {
    this.pending = undefined;
    this.socket.destroy();
  }

  private received(n: number): void {
    if (!this.pending) return;
    if (this.used + n > this.answer.length) {
      const larger = Buffer.allocUnsafe(Math.max(2 * this.answer.length, this.used + n));
      this.answer.copy(larger, 0, 0, this.used);
      this.answer = larger;
    }
    this.chunk.copy(this.answer, this.used, 0, n);
    this.used += n;
    if (this.bodyAt < 0 && !this.readHead()) return;
    if (this.used - this.bodyAt < this.bodyLength) return;
    const ms = performance.now() - this.started;
    if (this.used - this.bodyAt > this.bodyLength) return this.fail(new Error('the server sent more than its Content-Length'));
    const { resolve } = this.pending;
    this.pending = undefined;
    resolve({ status: this.status, ms, body: this.answer.subarray(this.bodyAt, this.used) });
  }

  /** Reads the status and Content-Length once the head is in; false while it is not. */
  private readHead(): boolean {
    const end = this.answer.subarray(0, this.used).indexOf(HEAD_END);
    if (end < 0) return false;
    const head = this.answer.toString('latin1', 0, end);
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    if (!length) {
      this.fail(new Error(`an answer without a Content-Length: ${head.split('\r\n')[0]}`));
      return false;
    }
    this.status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
    this.bodyLength = Number(length[1]);
    this.bodyAt = end + HEAD_END.length;
    return true;
  }

  private fail(e: Error): void {
    const pending = this.pending;
    this.pending = undefined;
    pending?.reject(e);
  }
}
