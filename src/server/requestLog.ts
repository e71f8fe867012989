// The last requests the API served, for the app's API panel: when, which key, which operation,
// status and milliseconds, and for a refused one why (its error code, field and message). Never
// bodies, never record data, never keys: an error message quotes what was sent (a filter value, a
// name put where a field name goes), so every quoted text but a request key's name is blanked.
import type { RequestLogEntry } from '../shared/contract';
import { FIELD_NAMES } from '../shared/fields';
import { listControlKeys } from '../shared/listControls';

export type { RequestLogEntry };

/** Quoted words an error message may keep: the names of the request's own keys ("near", "sample.every"). */
const KEY_NAMES = new Set(['state', 'limit', 'skip', 'filters', 'fields', ...Object.keys(listControlKeys)]);
const QUOTED = /"((?:[^"\\]|\\.)*)"/g;
const LONG_TOKEN = /[A-Za-z0-9_-]{20,}/g;

/** An error message with every quoted value blanked to "…", the request's key names kept. */
export function loggableMessage(message: string): string {
  return (
    message
      .replace(QUOTED, (whole, text: string) => (KEY_NAMES.has(text.split('.')[0]!) ? whole : '"…"'))
      // A path or any long token left unquoted (a PID, a key) is blanked too: no word of the app's messages is that long.
      .replace(LONG_TOKEN, '…')
  );
}

const RECORD_FIELDS = new Set(FIELD_NAMES);

/** Why a request was refused, as the log keeps it: quoted values blanked, a `field` kept only when it names a key or a record field. */
function loggableError(error: NonNullable<RequestLogEntry['error']>): RequestLogEntry['error'] {
  const { code, message, field } = error;
  const known = field !== undefined && (KEY_NAMES.has(field) || RECORD_FIELDS.has(field));
  // A 404 names the path asked for, which may hold anything: the log's operation already shows it, cleaned.
  const said = code === 'not_found' ? 'There is no such path.' : loggableMessage(message);
  return { code, message: said, ...(known ? { field } : {}) };
}

export class RequestLog {
  private readonly entries: RequestLogEntry[] = [];
  private lastSeq = 0;
  constructor(private readonly capacity = 200) {}

  add(entry: Omit<RequestLogEntry, 'seq'>): void {
    const { error } = entry;
    this.entries.push({ seq: ++this.lastSeq, ...entry, ...(error ? { error: loggableError(error) } : {}) });
    if (this.entries.length > this.capacity) this.entries.shift();
  }

  /** Newest first. */
  recent(limit = 50): RequestLogEntry[] {
    return this.entries.slice(-limit).reverse();
  }
}
