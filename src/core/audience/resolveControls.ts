// Turns a request's list controls into what an engine evaluates: each `exclude` entry becomes the
// saved audience it names (as it matches now, its own controls included) or the matcher of a
// suppression list or an earlier export. An unknown id, or a saved audience that ends up excluding
// itself, is a 400 naming "exclude".
import { normalizeAudience, type NormalizedAudience } from '../../shared/audienceRequest';
import type { SavedAudience } from '../../shared/contract';
import { AppError, isAppError } from '../../shared/errors';
import { hasListControls, type ExcludeRef, type Near } from '../../shared/listControls';
import type { Audience, Exclusion, RecordMatcher } from './contract/engine';

/** Where `exclude` entries are looked up (app state). */
export interface ExclusionSources {
  /** The centre of a ZIP named by `near` (the engine's dataset); undefined for a ZIP it does not know. */
  zipCentre(zip: string): Promise<{ lat: number; lon: number } | undefined> | { lat: number; lon: number } | undefined;
  /** Throws not_found for an unknown id. */
  savedAudience(id: number): SavedAudience;
  list(id: string): RecordMatcher | undefined;
  export(id: string): RecordMatcher | undefined;
}

export type AudienceQuery = Pick<NormalizedAudience, 'state' | 'filters' | 'listControls'>;

const unknown = (ref: string, what: string): AppError =>
  new AppError('invalid_request', `"exclude" names ${JSON.stringify(ref)}, but there is no such ${what}.`, 'exclude');

export async function resolveAudience(query: AudienceQuery, sources: ExclusionSources, trail: readonly string[] = []): Promise<Audience> {
  const { state, filters, listControls: c } = query;
  if (!hasListControls(c)) return { state, filters };
  const near = c.near && (await resolveNear(c.near, sources));
  const exclusions: Exclusion[] = [];
  for (const ref of c.exclude) exclusions.push(await resolveExclusion(ref, sources, trail));
  const key = JSON.stringify({
    near,
    contact: c.contact,
    households: c.households,
    sample: c.sample,
    exclude: exclusions.map((e) => (e.kind === 'audience' ? e.key : e.matcher.key)),
  });
  return { state, filters, controls: { near, contact: c.contact, exclusions, households: c.households, sample: c.sample, key } };
}

/** A point and radius; a ZIP becomes its centre in the dataset (extensions.md: an unknown ZIP is a 400). */
async function resolveNear(near: Near, sources: ExclusionSources): Promise<{ lat: number; lon: number; miles: number }> {
  if (!('zip' in near)) return near;
  const centre = await sources.zipCentre(near.zip);
  if (!centre) throw new AppError('invalid_request', `"near" names ZIP ${near.zip}, which no one in the dataset lives in.`, 'near');
  return { ...centre, miles: near.miles };
}

async function resolveExclusion(ref: ExcludeRef, sources: ExclusionSources, trail: readonly string[]): Promise<Exclusion> {
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
    return { kind: 'audience', key: `${name}@${saved.createdAt}`, audience: await resolveAudience(query, sources, [...trail, name]) };
  }
  const matcher = ref.kind === 'list' ? sources.list(ref.id) : sources.export(ref.id);
  if (!matcher) throw unknown(name, ref.kind === 'list' ? 'suppression list' : 'export that remembers whom it wrote');
  return { kind: 'people', matcher };
}
