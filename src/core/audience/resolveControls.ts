// Turns a request's list controls into what an engine evaluates: each `exclude` entry becomes the
// saved audience it names (as it matches now, its own controls included) or the matcher of a
// suppression list or an earlier export. An unknown id, or a saved audience that ends up excluding
// itself, is a 400 naming "exclude".
import { normalizeAudience, type NormalizedAudience } from '../../shared/audienceRequest';
import type { SavedAudience } from '../../shared/contract';
import { AppError, isAppError } from '../../shared/errors';
import type { ExcludeRef } from '../../shared/listControls';
import type { Audience, Exclusion, RecordMatcher } from './engine';

/** Where `exclude` entries are looked up (app state). */
export interface ExclusionSources {
  /** Throws not_found for an unknown id. */
  savedAudience(id: number): SavedAudience;
  list(id: string): RecordMatcher | undefined;
  export(id: string): RecordMatcher | undefined;
}

export type AudienceQuery = Pick<NormalizedAudience, 'state' | 'filters' | 'listControls'>;

const unknown = (ref: string, what: string): AppError =>
  new AppError('invalid_request', `"exclude" names ${JSON.stringify(ref)}, but there is no such ${what}.`, 'exclude');

export function resolveAudience(query: AudienceQuery, sources: ExclusionSources, trail: readonly string[] = []): Audience {
  const { state, filters, listControls: c } = query;
  const plain = !c.contact.phone && !c.contact.mail && c.exclude.length === 0 && c.households === 'all' && c.sample === null;
  if (plain) return { state, filters };
  const exclusions = c.exclude.map((ref) => resolveExclusion(ref, sources, trail));
  const key = JSON.stringify({
    contact: c.contact,
    households: c.households,
    sample: c.sample,
    exclude: exclusions.map((e) => (e.kind === 'audience' ? e.key : e.matcher.key)),
  });
  return { state, filters, controls: { contact: c.contact, exclusions, households: c.households, sample: c.sample, key } };
}

function resolveExclusion(ref: ExcludeRef, sources: ExclusionSources, trail: readonly string[]): Exclusion {
  const name = `${ref.kind}:${ref.id}`;
  if (trail.includes(name))
    throw new AppError(
      'invalid_request',
      `"exclude" names ${JSON.stringify(name)}, which leads back to the audience that names it.`,
      'exclude',
    );
  if (ref.kind === 'saved') {
    let saved: SavedAudience;
    try {
      saved = sources.savedAudience(Number(ref.id));
    } catch (e) {
      if (isAppError(e) && e.code === 'not_found') throw unknown(name, 'saved audience');
      throw e;
    }
    const query = normalizeAudience({ state: saved.state, filters: saved.filters, ...saved.controls });
    // A saved audience's id can be reused after it is deleted: its creation time tells them apart.
    return { kind: 'audience', key: `${name}@${saved.createdAt}`, audience: resolveAudience(query, sources, [...trail, name]) };
  }
  const matcher = ref.kind === 'list' ? sources.list(ref.id) : sources.export(ref.id);
  if (!matcher) throw unknown(name, ref.kind === 'list' ? 'suppression list' : 'export that remembers whom it wrote');
  return { kind: 'people', matcher };
}
