// The one error the renderer sees from its back end, whichever transport carried the call: the
// code and message of src/shared/errors.ts, and a sentence a person can read in place. A job the
// user stopped arrives as `cancelled`: an outcome to show as such, never an error toast.
export class BridgeError extends Error {
  readonly code: string;
  readonly field: string | undefined;
  constructor(code: string, message: string, field?: string) {
    super(message);
    this.name = 'BridgeError';
    this.code = code;
    this.field = field;
  }
}

const PREFIX: Record<string, string> = {
  invalid_json: 'The request could not be read',
  invalid_request: 'That request is not valid',
  unauthorized: 'Not authorised',
  forbidden: 'Refused',
  not_found: 'Not found',
  method_not_allowed: 'Not allowed',
  payload_too_large: 'Too large',
  unsupported_media_type: 'Unsupported request',
  rate_limited: 'Too many requests',
  cancelled: 'Cancelled',
  internal_error: 'Something went wrong',
  unavailable: 'Not available yet',
  // The message names the file and what to do (switch to the previous dataset, import again).
  dataset_damaged: 'The dataset is damaged',
  network_error: 'No connection to the back end',
};

/** True for a job the user stopped (an export, an import), whichever transport reported it. */
export function isCancelled(e: unknown): boolean {
  const coded = e as { code?: unknown } | null;
  return typeof coded === 'object' && coded !== null && coded.code === 'cancelled';
}

/** A readable sentence for any thrown value: never a stack trace, never "[object Object]". */
export function describeError(e: unknown): string {
  const coded = e as { code?: unknown; message?: unknown } | null;
  if (e instanceof BridgeError || (coded && typeof coded.code === 'string' && typeof coded.message === 'string')) {
    const { code, message } = toBridgeError(e);
    const prefix = PREFIX[code] ?? 'Error';
    return message ? `${prefix}: ${message}` : `${prefix}.`;
  }
  if (e instanceof Error && e.message) return e.message;
  if (typeof e === 'string' && e) return e;
  return 'Something went wrong; try again.';
}

/** Turns an IPC rejection (Electron wraps the message) or any foreign error into a BridgeError. */
export function toBridgeError(e: unknown): BridgeError {
  if (e instanceof BridgeError) return e;
  const raw = e as { code?: unknown; message?: unknown; field?: unknown } | null;
  if (raw && typeof raw.code === 'string' && typeof raw.message === 'string')
    return new BridgeError(raw.code, raw.message, typeof raw.field === 'string' ? raw.field : undefined);
  const message = e instanceof Error ? e.message : String(e);
  // Electron: "Error invoking remote method 'x': Error: <message>".
  const cleaned = message.replace(/^Error invoking remote method '[^']*': (\w*Error: )?/, '');
  return new BridgeError('internal_error', cleaned || 'The back end failed unexpectedly; try again.');
}
