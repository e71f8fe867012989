// The cut between two readers inside a gzip file, which cannot be entered in the middle: both
// readers inflate it from its start and find the same cut by the same rule (the first line end at
// or past `at` inflated bytes, as read/splitInput.ts cuts a plain file) without speaking; reader 0
// keeps what comes before, reader 1 the rest, counting the line breaks it skips for line numbers.
// docs/import.md, "Staged reading".
import { Transform, type TransformCallback } from 'node:stream';
import type { Newline } from '../types';

const LF = 0x0a;
const CR = 0x0d;

/** Line breaks as the row reader counts them: CRLF, LF and a lone CR one each, across chunks. */
export class LineCounter {
  private lines = 0;
  private lastWasCr = false;
  add(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    // Every LF is a line break; a CR is one unless an LF follows it (then the LF counts).
    for (let i = chunk.indexOf(LF); i >= 0; i = chunk.indexOf(LF, i + 1)) this.lines++;
    for (let i = chunk.indexOf(CR); i >= 0; i = chunk.indexOf(CR, i + 1)) if (i + 1 < chunk.length && chunk[i + 1] !== LF) this.lines++;
    if (this.lastWasCr && chunk[0] !== LF) this.lines++;
    this.lastWasCr = chunk[chunk.length - 1] === CR;
  }
  get total(): number {
    return this.lastWasCr ? this.lines + 1 : this.lines;
  }
}

export type CutSide = 'before' | 'after';

export class InflatedCut extends Transform {
  /** Whether the cut was found (else the stream held fewer than `at` bytes). */
  found = false;
  /** Line breaks before the cut (side 'after'). */
  linesBefore = 0;
  /** Inflated bytes before `held` (the start of the chunk being searched). */
  private offset = 0;
  /** The last byte of the previous chunk, kept back: a line end may continue in the next one. */
  private held: Buffer = Buffer.alloc(0);
  private readonly counter = new LineCounter();
  private readonly newline: Buffer;

  constructor(
    private readonly at: number,
    readonly side: CutSide,
    newline: Newline,
  ) {
    super();
    this.newline = Buffer.from(newline);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    if (this.found) {
      if (this.side === 'after') this.push(chunk);
      return done(); // side 'before' has ended: the rest is let go
    }
    const bytes = this.held.length > 0 ? Buffer.concat([this.held, chunk]) : chunk;
    const cut = this.cutIn(bytes, false);
    if (cut < 0) {
      const kept = bytes.subarray(0, bytes.length - 1);
      this.held = Buffer.from(bytes.subarray(bytes.length - 1));
      this.beforeCut(kept);
      this.offset += kept.length;
      return done();
    }
    this.found = true;
    this.held = Buffer.alloc(0);
    if (this.side === 'before') {
      this.push(bytes.subarray(0, cut));
      this.push(null);
    } else {
      this.counter.add(bytes.subarray(0, cut));
      this.linesBefore = this.counter.total;
      this.push(bytes.subarray(cut));
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    if (!this.found) {
      // The end: the byte held back ends no line that continues; a cut may still be just after it.
      const cut = this.cutIn(this.held, true);
      if (cut >= 0) {
        this.found = true;
        if (this.side === 'after') {
          this.counter.add(this.held.subarray(0, cut));
          this.linesBefore = this.counter.total;
          this.push(this.held.subarray(cut));
        } else this.push(this.held.subarray(0, cut));
      } else this.beforeCut(this.held);
    }
    done();
  }

  /** Bytes before the cut: kept (side 'before') or counted (side 'after'). */
  private beforeCut(bytes: Buffer): void {
    if (bytes.length === 0) return;
    if (this.side === 'before') this.push(bytes);
    else this.counter.add(bytes);
  }

  /** Where in `bytes` (starting at this.offset) the cut falls, or -1. `last`: nothing follows. */
  private cutIn(bytes: Buffer, last: boolean): number {
    const newline = this.newline;
    const lone = newline.length === 1 && newline[0] === CR;
    for (let i = bytes.indexOf(newline, Math.max(0, this.at - this.offset)); i >= 0; i = bytes.indexOf(newline, i + 1)) {
      const end = i + newline.length;
      if (!lone) return end;
      if (end < bytes.length) {
        if (bytes[end] !== LF) return end;
      } else if (last) return end;
      else return -1; // a CR at the very end: whether an LF follows is in the next chunk
    }
    return -1;
  }
}
