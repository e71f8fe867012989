// Match and append (docs/match.md): reads a customer file, finds each row's person in the current
// dataset, writes the file back with MATCH and the asked fields, and can keep the matched people as a
// suppression list (keyed hashes of their PIDs), named in `exclude` as `list:<id>` like any list.
// The file is read, matched and written a chunk of rows at a time, so memory does not grow with it.
// The summary holds counts only: no value of the file or of a record.
import { PickedFiles } from '../fs/pickedFiles';
import { basename, resolve } from 'node:path';
import { AppError } from '../../shared/errors';
import { fieldByName } from '../../shared/fields';
import type { AudienceEngine } from '../audience/contract/engine';
import type { SuppressionLists } from '../lists/suppressionLists';
import { CUSTOMER_REJECTS_KEPT, readCustomerChunks } from './customerFile';
import { EMPTY_MATCH_SUMMARY, type MatchSummary } from '../../shared/customerFiles';
import { byMethod, matchPeople, type Withheld } from './matchPeople';
import { MatchedFileWriter, type ValueStyle } from './writeMatched';

export type { MatchSummary };

/** Fields one match may append. */
export const MATCH_FIELDS_MAX = 64;

export interface MatchRequest {
  file: string;
  out: string;
  fields: readonly string[];
  values?: ValueStyle;
  /** Keep the matched people as a list of this name. */
  keepAs?: string;
  /** Follow a symbolic link named as the file (the CLI, whose user typed the path). */
  followLinks?: boolean;
  /** Rows matched at a time (customerFile.ts, CUSTOMER_CHUNK_ROWS); tests make it small. */
  chunkRows?: number;
  /** Characters parsed at a time (customerFile.ts); tests make it small to cut rows anywhere. */
  parseBlock?: number;
}

/** The catalog names of the asked fields, checked: unknown or repeated names are a 400 naming `fields`. */
export function matchFields(fields: readonly string[]): string[] {
  if (fields.length > MATCH_FIELDS_MAX)
    throw new AppError('invalid_request', `At most ${MATCH_FIELDS_MAX} fields can be appended.`, 'fields');
  const out: string[] = [];
  for (const f of fields) {
    const def = fieldByName(f.trim().toUpperCase());
    if (!def) throw new AppError('invalid_request', `${JSON.stringify(f.slice(0, 40))} is not a field of the catalog.`, 'fields');
    if (out.includes(def.name)) throw new AppError('invalid_request', `${def.name} is asked twice.`, 'fields');
    out.push(def.name);
  }
  return out;
}

export class MatchService {
  /** Files the user picked in the app (match/pick). */
  private readonly picked = new PickedFiles('"Choose a file"; only chosen files can be read.');

  constructor(
    private readonly engine: () => AudienceEngine | null,
    private readonly lists: SuppressionLists,
    /** The consumer opt-outs of the moment: an opted-out person is never matched. */
    private readonly withheld: () => Withheld,
  ) {}

  /** Files the user chose in the app (dialog or inbox): the app reads only these. */
  allow(paths: readonly string[]): string[] {
    return this.picked.allow(paths);
  }

  /** Refuses a file the app did not hand out by a pick. */
  assertPicked(path: string): void {
    this.picked.assert([path]);
  }

  async match(request: MatchRequest): Promise<MatchSummary> {
    const fields = matchFields(request.fields);
    const style = request.values ?? 'codes';
    if (style !== 'codes' && style !== 'labels') throw new AppError('invalid_request', '"values" is codes or labels.', 'values');
    if (resolve(request.out) === resolve(request.file))
      throw new AppError('invalid_request', 'The matched file cannot replace the customer file; name another file.', 'out');
    if (request.keepAs !== undefined) this.lists.checkName(request.keepAs);
    const engine = this.engine();
    if (!engine) throw new AppError('invalid_request', 'No dataset is open to match against.', 'dataset');
    const withheld = this.withheld();
    const keep = request.keepAs !== undefined;
    const summary: MatchSummary = structuredClone(EMPTY_MATCH_SUMMARY);
    // The matched people's PIDs, over all chunks (a list is kept of them).
    const pids = new Set<string>();
    let writer: MatchedFileWriter | null = null;
    try {
      // A chunk of rows at a time: read, matched and appended to the partial file, published at the end.
      const chunks = readCustomerChunks(resolve(request.file), {
        followLinks: request.followLinks === true,
        chunkRows: request.chunkRows,
        parseBlock: request.parseBlock,
      });
      for await (const chunk of chunks) {
        const { matches, refused } = await matchPeople(engine, chunk.rows, fields, withheld, keep);
        writer ??= MatchedFileWriter.create(request.out, fields, style);
        writer.write(chunk, matches);
        const counts = byMethod(matches);
        for (const method of ['pid', 'address', 'phone'] as const) summary.byMethod[method] += counts[method];
        for (const m of matches) {
          if (m === undefined) continue;
          summary.matched++;
          if (m.tied) summary.ambiguous++;
          if (keep) pids.add(m.pid);
        }
        summary.rows += chunk.rows.length;
        summary.rejected += chunk.rejected;
        summary.refused += refused;
        summary.rejects.push(...chunk.rejects.slice(0, CUSTOMER_REJECTS_KEPT - summary.rejects.length));
      }
      writer!.publish();
    } catch (e) {
      writer?.discard();
      throw e;
    }
    if (request.keepAs !== undefined && pids.size > 0) {
      const info = await this.lists.importContent(
        request.keepAs,
        { rows: pids.size, pids, phones: new Set(), addresses: new Set(), rejected: 0, rejects: [] },
        basename(request.file),
      );
      summary.list = info.id;
    }
    return summary;
  }
}
