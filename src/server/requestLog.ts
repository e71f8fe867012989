// The last requests the API served, for the app's API panel: when, which key, which operation,
// status and milliseconds. Never bodies, never record data, never keys.
import type { RequestLogEntry } from '../shared/contract';

export type { RequestLogEntry };

export class RequestLog {
  private readonly entries: RequestLogEntry[] = [];
  private lastSeq = 0;
  constructor(private readonly capacity = 200) {}

  add(entry: Omit<RequestLogEntry, 'seq'>): void {
    this.entries.push({ seq: ++this.lastSeq, ...entry });
    if (this.entries.length > this.capacity) this.entries.shift();
  }

  /** Newest first. */
  recent(limit = 50): RequestLogEntry[] {
    return this.entries.slice(-limit).reverse();
  }
}
