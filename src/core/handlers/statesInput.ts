// The app's audience input, normalized at the handler table's edge (as the HTTP API normalizes its
// own): the audience by the API's rules (src/shared/audienceRequest.ts), and `states`
// (docs/multi-state.md) checked like `state`, upper-cased, without duplicates and in code order.
import { normalizeAudience, type AudienceInput } from '../../shared/audienceRequest';
import { AppError } from '../../shared/errors';
import { isStateCode } from '../../shared/states';
import type { StatesRequest } from '../audience/audienceService';

export type StatesInput = AudienceInput & { states?: string[]; limit?: number; skip?: number };

/** The states an input asks about: `states` when given (unique, upper-cased, in code order), else `state`. */
export function askedStates(input: { state: string; states?: string[] }): string[] {
  if (!input.states?.length) return [input.state];
  const codes = [...new Set(input.states.map((s) => s.toUpperCase()))].sort();
  const unknown = codes.find((s) => !isStateCode(s));
  if (unknown !== undefined)
    throw new AppError(
      'invalid_request',
      `Unknown state ${JSON.stringify(unknown)} in "states": use two-letter USPS codes of the 50 states or DC.`,
      'states',
    );
  return codes;
}

/** An app input as the audience service takes it; `state` is the first of the states asked (`states` wins). */
export function statesRequest(input: StatesInput): StatesRequest & { states: string[] } {
  const asked = askedStates(input);
  const { states: _states, ...one } = input;
  const audience = normalizeAudience({ ...one, state: asked[0]! });
  // One state is as normalized (upper-cased); several were checked above.
  return { ...audience, states: asked.length === 1 ? [audience.state] : asked };
}
