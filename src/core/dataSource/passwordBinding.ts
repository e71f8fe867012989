// Whether the stored ClickHouse password may go to a server (issue 39: after restoring a backup whose
// settings named another address, `serve` sent the stored password there). SECURITY.md: the password
// goes only to the address it was typed for. The stored secret names that address and user itself
// (secretStore.ts), and settings can be replaced by a restore or a hand edit while the secret cannot:
// so it is sent only when the address and user asked for are the ones it was typed for AND the ones
// settings keep. The same for fallback nodes: each node it would go to (the address's fallbacks are
// sent the password when the address does not answer) must be one it was typed with and one settings
// keep. A secret stored before passwords were bound names no address: it is never sent
// (deciding now which address it was for would trust settings a restore may already have changed),
// and the user is asked to type it once more. Nothing here is ever said with the password in it.
import { shownAddress, type ClickHouseCredentials } from '../clickhouse/connection';
import type { ClickHouseSourceSetting } from './dataSourceSettings';
import type { StoredClickHouseSecret } from './secretStore';

export const UNBOUND_PASSWORD =
  'The stored ClickHouse password was kept by an earlier version of Audience Desk, before a password was tied to the ' +
  'address it was typed for, so it is sent nowhere: enter it again (Data source…) to use it.';

export function otherAddressPassword(setting: { url: string; user: string }): string {
  return (
    `The stored ClickHouse password was typed for another address or user, so it is not sent to ${shownAddress(setting.url)} ` +
    `as ${setting.user} (settings can name another server after a restore): enter the password for that server again (Data source…).`
  );
}

export interface PasswordDecision {
  /** The stored credentials, when they may go to this address and user; else null. */
  credentials: ClickHouseCredentials | null;
  /** Why a stored password is held back, to be told; null when none is stored or it goes. */
  withheld: string | null;
}

/** Whether every fallback node asked for is among those named. */
const within = (asked: readonly string[] | undefined, named: readonly string[] | undefined): boolean =>
  (asked ?? []).every((url) => (named ?? []).includes(url));

/** Whether `stored` may be sent to `target` (an address, its fallback nodes and a user asked for), given the ClickHouse source settings keep. */
export function passwordFor(
  target: { url: string; user: string; fallbackUrls?: readonly string[] },
  stored: StoredClickHouseSecret | null,
  kept: ClickHouseSourceSetting | null,
): PasswordDecision {
  if (!stored) return { credentials: null, withheld: null };
  if (stored.url === undefined) return { credentials: null, withheld: UNBOUND_PASSWORD };
  const typedFor = stored.url === target.url && stored.username === target.user && within(target.fallbackUrls, stored.fallbackUrls);
  const inSettings =
    kept !== null && kept.url === target.url && kept.user === target.user && within(target.fallbackUrls, kept.fallbackUrls);
  if (typedFor && inSettings) return { credentials: { username: stored.username, password: stored.password }, withheld: null };
  return { credentials: null, withheld: otherAddressPassword(target) };
}
