// List controls in a few words, for a saved audience's line, the count's caption and the export
// history. Exclusions are counted as what they are (lists, saved audiences, exports left out), never
// as people: how many people each step removed is StepCounts' to say, from the counts.
import type { ListControlsInput } from '../../../shared/listControls';
import { formatCount } from './format';

/** 1st, 2nd, 3rd, 4th … 11th, 12th, 13th … 21st, 22nd: the English ordinal of a whole number. */
export function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${formatCount(n)}${suffix}`;
}

/** "every 2nd person", or "every person" for 1. */
export function everyNth(n: number): string {
  return n === 1 ? 'every person' : `every ${ordinal(n)} person`;
}

/** `exports-since:YYYY-MM-DD` in words ("exported since 2026-11-01"); other references are the caller's to name. */
export function exportsSinceWords(ref: string): string | null {
  const m = /^exports-since:(\d{4}-\d{2}-\d{2})$/.exec(ref);
  return m ? `everyone exported since ${m[1]}` : null;
}

const plural = (n: number, one: string, many: string): string => `${formatCount(n)} ${n === 1 ? one : many}`;

/**
 * The controls in words. With `nameOf` (a reference's label: a list's name, an export's file), each
 * exclusion is named; without it they are counted ("leaving out 2 lists").
 */
export function controlsSummary(c: ListControlsInput | null | undefined, nameOf?: (ref: string) => string): string[] {
  if (!c) return [];
  const out: string[] = [];
  if (c.near) out.push(`within ${c.near.miles} mi of ${'zip' in c.near ? `ZIP ${c.near.zip}` : `${c.near.lat}, ${c.near.lon}`}`);
  if (c.contact?.phone) out.push('callable');
  if (c.contact?.mail) out.push('mailable');
  if (c.include?.length)
    out.push(nameOf ? `only ${c.include.map(nameOf).join('; ')}` : `only ${plural(c.include.length, 'list', 'lists')}`);
  if (c.exclude?.length && nameOf) out.push(`leaving out ${c.exclude.map((r) => exportsSinceWords(r) ?? nameOf(r)).join('; ')}`);
  else if (c.exclude?.length) {
    const since = c.exclude.map(exportsSinceWords).filter((w): w is string => w !== null);
    const others = c.exclude.length - since.length;
    if (others) out.push(`leaving out ${plural(others, 'list', 'lists')}`);
    for (const words of since) out.push(`leaving out ${words}`);
  }
  if (c.like) out.push(`${formatCount(c.like.top)} most like ${nameOf ? nameOf(c.like.seed) : 'a seed'}`);
  if (c.households === 'one') out.push('one a household');
  if (c.sample && 'every' in c.sample) out.push(everyNth(c.sample.every));
  else if (c.sample) out.push(`random ${formatCount(c.sample.size)} (seed ${c.sample.seed})`);
  return out;
}
