// What tests ask a core directly, through the same audience service the transports call: a raw body
// in, the answer as the app's search operation shapes it (records as field-name objects).
import { searchAnswerObjects } from '../../src/core/handlers/audienceHandlers';
import type { Audience } from '../../src/core/audience/contract/engine';
import { resolveAudience } from '../../src/core/audience/resolveControls';
import type { Core } from '../../src/core/createCore';
import type { Dataset } from '../../src/core/dataset/read/dataset';
import { EmbeddedEngine } from '../../src/core/query/embeddedEngine';
import { normalizeAudienceRequest } from '../../src/shared/audienceRequest';

export async function searchRecords(core: Core, body: unknown) {
  const answer = await core.audiences.search(normalizeAudienceRequest(body));
  return { total: answer.total, limit: answer.limit, skip: answer.skip, results: searchAnswerObjects(answer) };
}

export async function previewRecords(core: Core, body: unknown) {
  const { total, results } = await core.audiences.preview(normalizeAudienceRequest(body));
  return { total, results };
}

/** A core's embedded engine, for what only it answers (its value counts without the service's shaping). */
export function embeddedEngineOf(core: Core): EmbeddedEngine {
  if (!(core.engine instanceof EmbeddedEngine)) throw new Error('The core does not run the embedded engine.');
  return core.engine;
}

/** The open dataset file under a core's embedded engine (tests that break or inspect it on purpose). */
export function datasetOf(core: Core): Dataset {
  return embeddedEngineOf(core).dataset;
}

/**
 * A request body as an engine takes it, its list controls resolved as the audience service does
 * (a ZIP's centre from the engine; no saved audiences, lists or exports to exclude).
 */
export async function engineAudience(engine: EmbeddedEngine, body: unknown): Promise<Audience> {
  const none = (): never => {
    throw new Error('This test resolves no exclusions.');
  };
  return resolveAudience(normalizeAudienceRequest(body), {
    zipCentre: (zip) => engine.zipCentre(zip),
    savedAudience: none,
    list: none,
    export: none,
  });
}
