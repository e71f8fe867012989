// Browser mode's uploads (src/shared/rpcPaths.ts, UPLOAD_PATH): a file chosen in the page or dropped
// on it is sent to `serve`, which puts it in the home's inbox under a safe name of its own. The import
// and lists screens then pick it from the inbox as any file put there. In the desktop app there is
// nothing to upload: the open dialog reads the file where it is.
import { UPLOAD_PATH } from '../../../shared/rpcPaths';
import { BridgeError } from '../bridge';
import { currentPageToken } from '../bridge/pageToken';
import { RPC_TOKEN_HEADER } from '../bridge/rpcPaths';

export interface Uploaded {
  /** The name the file has in the inbox (a file of the same name already there is kept: this one gets "(2)"). */
  name: string;
  bytes: number;
  inbox: string;
}

/** True in browser mode: the page talks to `serve` over HTTP, and files reach it by upload. */
export function canUpload(): boolean {
  return !(globalThis as { audienceDesk?: unknown }).audienceDesk && currentPageToken() !== null;
}

/** Sends one file to the inbox; a refusal (too large, no token) arrives as a BridgeError with its message. */
export async function uploadToInbox(file: File): Promise<Uploaded> {
  const response = await fetch(`${UPLOAD_PATH}?name=${encodeURIComponent(file.name)}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/octet-stream', [RPC_TOKEN_HEADER]: currentPageToken() ?? '' },
    body: file,
    cache: 'no-store',
  }).catch(() => {
    throw new BridgeError('network_error', 'The Audience Desk server did not answer; is `serve` still running?');
  });
  const body = (await response.json().catch(() => null)) as
    { ok: true; value: Uploaded } | { ok: false; error: { code: string; message: string; field?: string } } | null;
  if (body?.ok) return body.value;
  if (body && !body.ok) throw new BridgeError(body.error.code, body.error.message, body.error.field);
  throw new BridgeError('internal_error', `The upload was answered ${response.status} without an explanation; try again.`);
}

/** Where a file of `name` lands (the inbox's path joined as the server does): to find it among the picked files. */
export function inboxPath(uploaded: Uploaded): string {
  const sep = uploaded.inbox.includes('\\') && !uploaded.inbox.includes('/') ? '\\' : '/';
  return `${uploaded.inbox}${sep}${uploaded.name}`;
}
