// Format 7 to 8 in place: the only difference is that format 8 packs the chunks of one-byte vectors
// whose values fit 4 bits (codec/packedChunks.ts), so the upgrade rewrites those chunks and nothing
// else: records, list keys, PID ranks and order stay byte for byte, and a national file is upgraded
// in minutes instead of being written again for hours. Each chunk is checked as a reader checks it
// before it is rewritten; the chunks, the format and the new checksum go in in one transaction
// (inPlaceChange.ts).
import { AppError } from '../../../shared/errors';
import type { VectorHeader } from '../codec/vectorChunks';
import { ZstdDecompressor } from '../codec/zstdContext';
import { datasetDamaged } from '../format/damage';
import { DATASET_FORMAT_VERSION } from '../format/schema';
import { changeInPlace } from './inPlaceChange';
import { ZSTD_CHUNKS_FORMAT } from './legacyFormats';

/** Whether a file's meta says it is of format 7, which packVectorChunks() brings to the current format. */
export function hasZstdChunksOnly(meta: Readonly<Record<string, string>>): boolean {
  return meta.format_version === ZSTD_CHUNKS_FORMAT;
}

/** Packs the chunks of the file at `path` (format 7) that the current writer packs; `onField` after each vector. Returns the records. */
export function packVectorChunks(path: string, onField?: (done: number, total: number) => void): number {
  const refusal = (meta: Readonly<Record<string, string>>) =>
    hasZstdChunksOnly(meta) ? null : new AppError('invalid_request', `The dataset file ${path} is not of format ${ZSTD_CHUNKS_FORMAT}.`);
  return changeInPlace(path, refusal, 'its vectors do not read', ({ db, layout, records }) => {
    const headers = db.prepare("SELECT name, encoding, kind, length, dict, crc FROM columns WHERE kind = 'u8'").all() as Array<
      VectorHeader & { crc: number }
    >;
    const get = db.prepare('SELECT crc, data FROM vector_chunks WHERE name = ? AND chunk = ?');
    const put = db.prepare('UPDATE vector_chunks SET crc = ?, data = ? WHERE name = ? AND chunk = ?');
    const values = new Uint8Array(layout.size);
    const decompressor = new ZstdDecompressor();
    headers.forEach((header, done) => {
      if (layout.headerCrc(header) !== header.crc || header.length !== records)
        throw datasetDamaged(path, `the header of the vector of ${header.name} fails its checksum`);
      for (let c = 0; c < layout.count(records); c++) {
        const stored = get.get(header.name, c) as { crc: number; data: Uint8Array } | undefined;
        if (!stored) throw datasetDamaged(path, `chunk ${c} of the vector of ${header.name} is missing`);
        const own = values.subarray(0, layout.values(c, records));
        // Read as format 7 stored it: a zstd stream, whatever its first frame (one that happens to be a
        // skippable frame with the packed magic is still zstd here).
        layout.checked(path, header, c, stored);
        try {
          decompressor.decompressInto(stored.data, own);
        } catch {
          throw datasetDamaged(path, `chunk ${c} of the vector of ${header.name} does not decompress`);
        }
        const { data, crc } = layout.encodeFieldValues(header.name, c, own);
        if (crc !== stored.crc) put.run(crc, data, header.name, c);
      }
      onField?.(done + 1, headers.length);
    });
    return { format_version: DATASET_FORMAT_VERSION };
  });
}
