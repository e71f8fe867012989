// Turns a request's list controls into what an engine evaluates: each `exclude` entry becomes the
// saved audience it names (as it matches now, its own controls included) or the matcher of a
// suppression list or an earlier export; `include` entries and a `like` seed the same way, and a
// `like` learns its model (likeModel.ts). An unknown id, or a saved audience that ends up naming
// itself, is a 400 naming the key.
import { normalizeAudience, type NormalizedAudience } from '../../shared/audienceRequest';
import type { SavedAudience } from '../../shared/contract';
import { AppError, isAppError } from '../../shared/errors';
import { hasListControls, type ExcludeRef, type Near } from '../../shared/listControls';
import type { Audience, Exclusion, RecordMatcher } from './contract/engine';
import { resolveLike, type LikeEngine } from './likeModel';
import { peopleKey as exclusionKey } from './peopleSets';

/** Where `exclude` entries are looked up (app state). */
export interface ExclusionSources {
  /** The centre of a ZIP named by `near` (the engine's dataset); undefined for a ZIP it does not know. */
  zipCentre(zip: string): Promise<{ lat: number; lon: number } | undefined> | { lat: number; lon: number } | undefined;
  /** Throws not_found for an unknown id. */
  savedAudience(id: number): SavedAudience;
  list(id: string): RecordMatcher | undefined;
  export(id: string): RecordMatcher | undefined;
  /** The people of every export finished on or after a day (YYYY-MM-DD, local); nobody when none was. */
  exportsSince?(day: string): RecordMatcher;
  /** The engine a `like` learns its model from (likeModel.ts); without it, `like` cannot be resolved. */
  engine?: LikeEngine;
  /** Consumer opt-outs (docs/optouts.md): the people every audience leaves out before any step; undefined when none. */
  optOuts?(): RecordMatcher | undefined;
}

/** The key whose entries a set of people is named in: it names the key in a 400. */
type RefKey = 'exclude' | 'include' | 'like';

export type AudienceQuery = Pick<NormalizedAudience, 'state' | 'filters' | 'listControls'>;

const unknown = (ref: string, what: string, key: RefKey): AppError =>
  new AppError('invalid_request', `"${key}" names ${JSON.stringify(ref)}, but there is no such ${what}.`, key);

export async function resolveAudience(query: AudienceQuery, sources: ExclusionSources, trail: readonly string[] = []): Promise<Audience> {
  const { state, filters, listControls: c } = query;
  // Opted-out people leave every audience, asked or not; a saved audience inside another is left to the outer one.
  const optOuts = trail.length === 0 ? sources.optOuts?.() : undefined;
  if (!hasListControls(c) && !optOuts) return { state, filters };
  const near = c.near && (await resolveNear(c.near, sources));
  const exclusions: Exclusion[] = optOuts ? [{ kind: 'people', matcher: optOuts, withdrawn: true }] : [];
  for (const ref of c.exclude) exclusions.push(await resolveExclusion(ref, sources, trail));
  const inclusions: Exclusion[] = [];
  for (const ref of c.include) inclusions.push(await resolveExclusion(ref, sources, trail, 'include'));
  const like = c.like && (await resolveLike(c.like, state, sources.engine, (ref) => resolveExclusion(ref, sources, trail, 'like')));
  const key = JSON.stringify({
    near,
    contact: c.contact,
    households: c.households,
    sample: c.sample,
    exclude: exclusions.map(exclusionKey),
    ...(inclusions.length ? { include: inclusions.map(exclusionKey) } : {}),
    ...(like ? { like: { seed: exclusionKey(like.seed), top: like.top } } : {}),
  });
  const controls = { near, contact: c.contact, exclusions, inclusions, like, households: c.households, sample: c.sample, key };
  return { state, filters, controls };
}

/** A point and radius; a ZIP becomes its centre in the dataset (extensions.md: an unknown ZIP is a 400). */
async function resolveNear(near: Near, sources: ExclusionSources): Promise<{ lat: number; lon: number; miles: number }> {
  if (!('zip' in near)) return near;
  const centre = await sources.zipCentre(near.zip);
  if (!centre) throw new AppError('invalid_request', `"near" names ZIP ${near.zip}, which no one in the dataset lives in.`, 'near');
  return { ...centre, miles: near.miles };
}

async function resolveExclusion(
  ref: ExcludeRef,
  sources: ExclusionSources,
  trail: readonly string[],
  key: RefKey = 'exclude',
): Promise<Exclusion> {
  const name = `${ref.kind}:${ref.id}`;
  if (trail.includes(name))
    throw new AppError('invalid_request', `"${key}" names ${JSON.stringify(name)}, which leads back to the audience that names it.`, key);
  if (ref.kind === 'saved') {
    let saved: SavedAudience;
    try {
      saved = sources.savedAudience(Number(ref.id));
    } catch (e) {
      if (isAppError(e) && e.code === 'not_found') throw unknown(name, 'saved audience', key);
      throw e;
    }
    const query = normalizeAudience({ state: saved.state, filters: saved.filters, ...saved.controls });
    // A saved audience's id can be reused after it is deleted, and a saved audience can be replaced under
    // its id: its creation and last change tell them apart.
    return {
      kind: 'audience',
      key: `${name}@${saved.createdAt}/${saved.updatedAt}`,
      audience: await resolveAudience(query, sources, [...trail, name]),
    };
  }
  if (ref.kind === 'exports-since') {
    if (!sources.exportsSince) throw unknown(name, 'export history here', key);
    return { kind: 'people', matcher: sources.exportsSince(ref.id) };
  }
  const matcher = ref.kind === 'list' ? sources.list(ref.id) : sources.export(ref.id);
  if (!matcher) throw unknown(name, ref.kind === 'list' ? 'suppression list' : 'export that remembers whom it wrote', key);
  return { kind: 'people', matcher };
}

/**
 * `audience` with the consumer opt-outs left out before every step (docs/optouts.md), for an audience a
 * feature builds itself instead of through resolveAudience (a profile's base, a model's rest of the
 * state): the same as a request's. Unchanged when nobody is opted out.
 */
export function withOptOuts(audience: Audience, sources: Pick<ExclusionSources, 'optOuts'>): Audience {
  const matcher = sources.optOuts?.();
  if (!matcher) return audience;
  const optOut: Exclusion = { kind: 'people', matcher, withdrawn: true };
  const c = audience.controls;
  if (c?.exclusions.some((e) => e.kind === 'people' && e.withdrawn)) return audience;
  const controls = c
    ? { ...c, exclusions: [optOut, ...c.exclusions], key: JSON.stringify({ optOuts: matcher.key, controls: c.key }) }
    : {
        near: null,
        contact: { phone: false, mail: false },
        exclusions: [optOut],
        inclusions: [],
        like: null,
        households: 'all' as const,
        sample: null,
        key: JSON.stringify({ optOuts: matcher.key }),
      };
  return { ...audience, controls };
}
