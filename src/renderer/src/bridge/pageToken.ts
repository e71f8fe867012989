// Browser mode's page token, taken out of the page's address as soon as the page loads. `serve`
// prints the page with its token in the URL; left there, it would sit in the address bar, the
// history and any copy of the link. It moves to the tab's sessionStorage, which belongs to this
// origin alone (its port included, unlike cookies), so a reload of the same tab still has it, and
// nothing another local server receives (the page's cookie, a Referer) carries it.
import { RPC_TOKEN_QUERY } from './rpcPaths';

const STORAGE_KEY = 'audience-desk.ui-token';

/** What pageToken() needs of the page; the browser's own objects in the app, fakes in unit tests. */
export interface PageLocation {
  location: Pick<Location, 'pathname' | 'search' | 'hash'>;
  history: Pick<History, 'replaceState' | 'state'>;
  storage: Pick<Storage, 'getItem' | 'setItem'> | null;
}

/** The token of this page: from its URL (then removed from it and kept for reloads), else the one kept before, else null. */
export function pageToken({ location, history, storage }: PageLocation): string | null {
  const params = new URLSearchParams(location.search);
  const fromUrl = params.get(RPC_TOKEN_QUERY);
  if (!fromUrl) return read(storage);
  try {
    storage?.setItem(STORAGE_KEY, fromUrl);
  } catch {
    // Storage refused (a private window with it off): the token still works until the page reloads.
  }
  params.delete(RPC_TOKEN_QUERY);
  const search = params.toString();
  history.replaceState(history.state, '', `${location.pathname}${search ? `?${search}` : ''}${location.hash}`);
  return fromUrl;
}

function read(storage: PageLocation['storage']): string | null {
  try {
    return storage?.getItem(STORAGE_KEY) ?? null;
  } catch {
    return null;
  }
}

/** pageToken() of the page this renderer runs in; null outside a browser page. */
export function currentPageToken(): string | null {
  if (typeof location === 'undefined' || typeof history === 'undefined') return null;
  let storage: Storage | null;
  try {
    storage = sessionStorage;
  } catch {
    // Reading sessionStorage throws where storage is off for the page.
    storage = null;
  }
  return pageToken({ location, history, storage });
}
