// An audience as the loopback API's request body and as a ready-to-run curl command, list controls
// included. The key is always the placeholder: a real key is never written into a snippet.
import type { Filter } from '../../../shared/contract';
import type { ListControlsInput } from '../../../shared/listControls';

export const KEY_PLACEHOLDER = '<your key>';

/** A state, its filters and the list controls' request keys (only those that do something). */
export interface SnippetAudience extends ListControlsInput {
  state: string;
  filters: Filter[];
}

export function requestBody(audience: SnippetAudience, limit = 25, skip = 0): string {
  const { state, filters, ...controls } = audience;
  return JSON.stringify({ state, limit, skip, filters, ...controls });
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export function curlCommand(baseUrl: string | null, audience: SnippetAudience, operation: 'preview' | 'search' = 'preview'): string {
  const base = (baseUrl ?? 'http://127.0.0.1:PORT').replace(/\/+$/, '');
  return [
    `curl -sS -X POST ${shellQuote(`${base}/api/audiences/${operation}`)}`,
    `  -H 'Content-Type: application/json'`,
    `  -H ${shellQuote(`X-API-KEY: ${KEY_PLACEHOLDER}`)}`,
    `  -d ${shellQuote(requestBody(audience))}`,
  ].join(' \\\n');
}
