// What every engine asks of an audience's resolved list controls (resolveControls.ts): whether they
// change anything, the key its controlled list is cached under, and the steps of an audience they
// leave alone.
import { audienceKey } from '../../../shared/audienceRequest';
import type { AudienceSteps } from '../../../shared/contract';
import type { Audience, ResolvedControls } from './engine';

/** Whether the controls change anything (all defaults: the filtered people are the answer). */
export function hasEffect(c: ResolvedControls | undefined): c is ResolvedControls {
  return (
    !!c && (c.near !== null || c.contact.phone || c.contact.mail || c.exclusions.length > 0 || c.households === 'one' || c.sample !== null)
  );
}

/** The cache key of an audience's people after its list controls: its state and filters, then its controls. */
export function controlledKey(audience: Audience, controls: ResolvedControls): string {
  return `${audienceKey(audience)}#${controls.key}`;
}

/** The steps of an audience whose list controls change nothing: every step keeps everyone matched. */
export function unchangedSteps(total: number): AudienceSteps {
  return { matched: total, afterExclusions: total, afterHouseholds: total, total };
}
