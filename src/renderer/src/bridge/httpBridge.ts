// Browser mode: the same AudienceDeskApi over HTTP. Each operation is a POST of its input to the
// ui server's rpc path, authorised by the page's one-time `token` (pageToken.ts; sent as a header,
// never in a URL of its own); the answer is an Envelope that is unwrapped or thrown as BridgeError.
import { OPERATION_NAMES, type AudienceDeskApi, type Envelope, type OperationName } from '../../../shared/contract';
import { ERROR_STATUS } from '../../../shared/errors';
import { BridgeError } from './bridgeError';
import { RPC_TOKEN_HEADER, rpcPath } from './rpcPaths';

export interface HttpBridgeOptions {
  token: string | null;
  fetchImpl?: typeof fetch;
  /** Where rpc paths are resolved; the page's origin by default. */
  baseUrl?: string;
}

function isEnvelope(body: unknown): body is Envelope<unknown> {
  return typeof body === 'object' && body !== null && typeof (body as { ok?: unknown }).ok === 'boolean';
}

function errorFrom(body: unknown, status: number): BridgeError {
  const err = (body as { error?: { code?: unknown; message?: unknown; field?: unknown } } | null)?.error;
  if (err && typeof err.code === 'string' && typeof err.message === 'string')
    return new BridgeError(err.code, err.message, typeof err.field === 'string' ? err.field : undefined);
  if (status === 401 || status === 403)
    return new BridgeError('unauthorized', 'This page is not authorised; open the ui: address that `serve` printed.');
  if (status === ERROR_STATUS.cancelled) return new BridgeError('cancelled', 'The job was cancelled.');
  if (status === 503)
    return new BridgeError('unavailable', 'The Audience Desk server is not available right now (stopping or busy); try again in a moment.');
  return new BridgeError('internal_error', `The back end answered ${status} without an explanation; try again.`);
}

export async function callRpc(op: OperationName, input: unknown, options: HttpBridgeOptions): Promise<unknown> {
  const fetchImpl = options.fetchImpl ?? fetch;
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (options.token) headers[RPC_TOKEN_HEADER] = options.token;
  const url = options.baseUrl ? new URL(rpcPath(op), options.baseUrl).toString() : rpcPath(op);
  let response: Response;
  try {
    response = await fetchImpl(url, { method: 'POST', headers, body: JSON.stringify(input ?? {}), cache: 'no-store' });
  } catch {
    throw new BridgeError('network_error', 'The Audience Desk server did not answer; is `serve` still running?');
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw errorFrom(null, response.status);
  }
  if (isEnvelope(body)) {
    if (body.ok) return body.value;
    throw new BridgeError(body.error.code, body.error.message, body.error.field);
  }
  throw errorFrom(body, response.status);
}

export function createHttpBridge(options: HttpBridgeOptions): AudienceDeskApi {
  const api: Record<string, (input: unknown) => Promise<unknown>> = {};
  for (const op of OPERATION_NAMES) api[op] = (input) => callRpc(op, input, options);
  return api as unknown as AudienceDeskApi;
}
