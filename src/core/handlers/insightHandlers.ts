// The app's insight operations (docs/insight.md): the profile of an audience (one state or several),
// the overlap of 2 to 5 saved audiences, lists or exports, and a lookalike model's quality, answered
// by the audience service as the HTTP API's are; input normalized here, as the API normalizes its own.
import { AppError } from '../../shared/errors';
import { normalizeOverlapRequest } from '../../shared/overlap';
import { profileFields } from '../../shared/profile';
import { isStateCode } from '../../shared/states';
import type { Core } from '../createCore';
import type { HandlerRegistry } from './registry';
import { statesRequest } from './statesInput';

export function registerInsightHandlers(registry: HandlerRegistry, core: Core): void {
  const audiences = core.audiences;
  registry.register('audience/profile', ({ fields, ...audience }) => audiences.profile(statesRequest(audience), profileFields(fields)));
  registry.register('audience/overlap', (input) => audiences.overlap(normalizeOverlapRequest(input)));
  registry.register('audience/likeQuality', ({ state, seed }) => {
    if (!isStateCode(state)) throw new AppError('invalid_request', `Unknown state ${JSON.stringify(state.slice(0, 40))}.`, 'state');
    return audiences.likeQuality(state.toUpperCase(), seed);
  });
}
