// What `restore` prints before it asks (issue 39): everything a backup would bring that decides who
// can do what afterwards. API keys by name, each one this home does not have now marked NEW (after
// the restore it works here: expected for your own backup in a fresh home, a warning sign in any
// other), the suppression lists and saved audiences, and the ClickHouse server (and fallback nodes) its settings name.
// Every name was escaped by the core (shownText.ts): a crafted one cannot fake a line of this.
import type { RestorePreview } from '../../shared/contract';

const more = (shown: number, total: number): string[] => (total > shown ? [`    … and ${total - shown} more`] : []);

export function formatRestorePreview(p: RestorePreview, source: string, home: string): string {
  const c = p.counts;
  const lines = [
    `backup ${source}${p.createdAt ? ` (made ${p.createdAt})` : ''}: checked, an Audience Desk backup exactly as the app makes it.`,
    `Restoring it replaces ALL app state of ${home} (keys, lists, saved audiences, history, settings) with:`,
    `  API keys: ${c.keys} (${c.activeKeys} active; ${c.newKeys} active ${c.newKeys === 1 ? 'key is' : 'keys are'} NEW: not a key of this home now)`,
    ...p.keys.map(
      (k) =>
        `    ${k.name}  ${k.prefix}…  created ${k.createdAt}${k.revoked ? '  revoked' : k.inThisHome ? '' : '  NEW: works here after the restore'}`,
    ),
    ...more(p.keys.length, c.keys),
    `  suppression lists: ${c.lists}`,
    ...p.lists.map((l) => `    ${l.name}: ${l.pids} PIDs, ${l.phones} phones, ${l.addresses} addresses`),
    ...more(p.lists.length, c.lists),
    `  saved audiences: ${c.savedAudiences}`,
    ...p.savedAudiences.map((name) => `    ${name}`),
    ...more(p.savedAudiences.length, c.savedAudiences),
    p.clickhouse
      ? `  ClickHouse server: ${p.clickhouse.url}` +
        `${p.clickhouse.fallbackUrls.length ? ` (fallback nodes ${p.clickhouse.fallbackUrls.join(', ')})` : ''}` +
        `, user ${p.clickhouse.user}, database ${p.clickhouse.database}` +
        `${p.clickhouse.chosen ? ' (the data source)' : ''}; the stored password goes to it only if it was typed for that address and user`
      : '  ClickHouse server: none',
    `  history entries: ${c.auditEntries}, settings: ${c.settings}`,
  ];
  return lines.join('\n');
}
