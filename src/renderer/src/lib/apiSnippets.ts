// An audience as the loopback API's request body and as a ready-to-run curl command. The key is
// always the placeholder: a real key is never written into a snippet.
import type { Filter } from '../../../shared/contract';

export const KEY_PLACEHOLDER = '<your key>';

export function requestBody(state: string, filters: Filter[], limit = 25, skip = 0): string {
  return JSON.stringify({ state, limit, skip, filters });
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export function curlCommand(baseUrl: string | null, state: string, filters: Filter[], operation: 'preview' | 'search' = 'preview'): string {
  const base = (baseUrl ?? 'http://127.0.0.1:PORT').replace(/\/+$/, '');
  return [
    `curl -sS -X POST ${shellQuote(`${base}/api/audiences/${operation}`)}`,
    `  -H 'Content-Type: application/json'`,
    `  -H ${shellQuote(`X-API-KEY: ${KEY_PLACEHOLDER}`)}`,
    `  -d ${shellQuote(requestBody(state, filters))}`,
  ].join(' \\\n');
}
