// How a set of states reads in a sentence: "California", "CA, NY and TX", "12 states", "all states".
import { STATES, STATE_CODES } from '../../../shared/states';

/** Up to three states are named (one by its full name); more are counted; every one is "all states". */
export function statesLabel(codes: readonly string[]): string {
  if (codes.length === 0) return 'no state';
  if (codes.length === 1) return STATES[codes[0]!] ?? codes[0]!;
  if (codes.length >= STATE_CODES.length && STATE_CODES.every((c) => codes.includes(c))) return 'all states';
  if (codes.length <= 3) return `${codes.slice(0, -1).join(', ')} and ${codes.at(-1)}`;
  return `${codes.length} states`;
}
