// List controls in a few words, for a saved audience's line and the count's caption.
import type { ListControlsInput } from '../../../shared/listControls';
import { formatCount } from './format';

export function controlsSummary(c: ListControlsInput | null | undefined): string[] {
  if (!c) return [];
  const out: string[] = [];
  if (c.near) out.push(`within ${c.near.miles} mi of ${'zip' in c.near ? `ZIP ${c.near.zip}` : `${c.near.lat}, ${c.near.lon}`}`);
  if (c.contact?.phone) out.push('callable');
  if (c.contact?.mail) out.push('mailable');
  if (c.exclude?.length) out.push(`${c.exclude.length} left out`);
  if (c.households === 'one') out.push('one a household');
  if (c.sample && 'every' in c.sample) out.push(`every ${formatCount(c.sample.every)}th`);
  else if (c.sample) out.push(`random ${formatCount(c.sample.size)} (seed ${c.sample.seed})`);
  return out;
}
