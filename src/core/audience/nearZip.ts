// `near` around a ZIP that none of the audience's states holds would keep nobody, silently (a New
// York ZIP in a California audience gives 0). interface.md makes such a ZIP a 400 naming it, so the
// check runs here, above the engines, and answers the same on each: it counts the states' people
// living in the ZIP with the engine's own count (cached like any audience's).
import { AppError } from '../../shared/errors';
import { fieldIndex } from '../../shared/fields';
import type { Near } from '../../shared/listControls';
import type { AudienceEngine } from './contract/engine';

/** Throws a 400 naming `near` and the ZIP when no one in `states` lives in the ZIP `near` is around. */
export async function checkNearZip(engine: AudienceEngine, states: readonly string[], near: Near | null): Promise<void> {
  if (!near || !('zip' in near)) return;
  const filter = { field: 'ZIP', index: fieldIndex('ZIP'), kind: 'string' as const, values: [near.zip] };
  for (const state of states) if ((await engine.count({ state, filters: [filter] })) > 0) return;
  throw new AppError('invalid_request', `"near" names ZIP ${near.zip}, which no one in ${states.join(', ')} lives in.`, 'near');
}
