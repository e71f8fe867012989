// Browser mode's wire: how the renderer's operations travel over HTTP to `serve` (src/server/uiServer.ts).
//
// - The page is opened at `http://127.0.0.1:PORT/ui/?token=<token>`; the token is random per start of
//   `serve` and printed on its `ui:` line. Opening that URL also sets an HttpOnly cookie scoped to
//   /ui/ (named after the port) holding a value derived from the token, so the page's own scripts and
//   styles load without a token in their URLs; the cookie opens nothing else (browsers send it to
//   every port of 127.0.0.1). The page then moves the token from its URL to sessionStorage.
// - Each operation is `POST rpcPath(op)` with `Content-Type: application/json`, the operation's input
//   as the JSON body, and the token in the RPC_TOKEN_HEADER header (the renderer's pageToken.ts).
//   The cookie does not authorise an rpc call.
// - Every rpc answer is an Envelope (contract.ts) as JSON; the HTTP status mirrors the error's
//   status (400, 401, 403, 404, 413, 415, 500, 503), 200 for `ok: true`.
import type { OperationName } from './contract';

export const RPC_PREFIX = '/ui/rpc/';
export const RPC_TOKEN_HEADER = 'X-UI-TOKEN';
/** The page URL's query parameter that carries the token. */
export const RPC_TOKEN_QUERY = 'token';
export const UI_PATH = '/ui/';
/**
 * Browser mode's uploads (src/server/uiUpload.ts): `POST UPLOAD_PATH?name=<file name>` with the file as
 * an application/octet-stream body and the token in RPC_TOKEN_HEADER; the answer is an Envelope of
 * `{name, bytes, inbox}`, the file then being in the home's inbox for `import/pick` and `lists/pick`.
 */
export const UPLOAD_PATH = '/ui/upload';

export function rpcPath(op: OperationName): string {
  return RPC_PREFIX + op;
}

/** The page address `serve` prints: the UI with its token. */
export function uiUrl(baseUrl: string, token: string): string {
  return `${baseUrl}${UI_PATH}?${RPC_TOKEN_QUERY}=${encodeURIComponent(token)}`;
}
