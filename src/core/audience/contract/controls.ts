// What every engine asks of an audience's resolved list controls (resolveControls.ts): whether they
// change anything, the key its controlled list is cached under, and the steps of an audience they
// leave alone.
import { audienceKey } from '../../../shared/audienceRequest';
import type { AudienceSteps } from '../../../shared/contract';
import type { Audience, Exclusion, ResolvedControls } from './engine';

/** Whether the controls change anything (all defaults: the filtered people are the answer). */
export function hasEffect(c: ResolvedControls | undefined): c is ResolvedControls {
  return (
    !!c &&
    (c.near !== null ||
      c.contact.phone ||
      c.contact.mail ||
      c.exclusions.length > 0 ||
      c.inclusions.length > 0 ||
      c.like !== null ||
      c.households === 'one' ||
      c.sample !== null)
  );
}

/**
 * Every set of people the controls name (exclusions, inclusions, then the lookalike seed), in the
 * order whose index ListPrimitives.excluded is given (listSteps.ts), so an engine can find them all first.
 */
export function namedPeople(c: ResolvedControls): Exclusion[] {
  return [...c.exclusions, ...c.inclusions, ...(c.like ? [c.like.seed] : [])];
}

/** The cache key of an audience's people after its list controls: its state and filters, then its controls. */
export function controlledKey(audience: Audience, controls: ResolvedControls): string {
  return `${audienceKey(audience)}#${controls.key}`;
}

/** The steps of an audience whose list controls change nothing: every step keeps everyone matched. */
export function unchangedSteps(total: number): AudienceSteps {
  return { filtered: total, matched: total, afterContact: total, afterExclusions: total, afterHouseholds: total, total };
}
