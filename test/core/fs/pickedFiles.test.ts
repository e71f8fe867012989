// The chosen-files rule every service that reads files for the app keeps: only paths handed out by a
// pick, compared once resolved, and a refusal that names the file and the button, never another path.
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PickedFiles } from '../../../src/core/fs/pickedFiles';
import { AppError } from '../../../src/shared/errors';

describe('PickedFiles', () => {
  it('lets through only the paths a pick handed out, however they are spelled', () => {
    const picked = new PickedFiles('"Choose files"; only chosen files can be imported.', 'files');
    const chosen = join('/tmp', 'inbox', 'a.csv');
    expect(picked.allow([chosen])).toEqual([resolve(chosen)]);
    expect(picked.assert([join('/tmp', 'inbox', '..', 'inbox', 'a.csv')])).toEqual([resolve(chosen)]);
    let refusal: unknown;
    try {
      picked.assert([chosen, '/etc/passwd']);
    } catch (e) {
      refusal = e;
    }
    expect(refusal).toBeInstanceOf(AppError);
    expect((refusal as AppError).code).toBe('forbidden');
    expect((refusal as AppError).field).toBe('files');
    expect((refusal as AppError).message).toBe('passwd was not chosen with "Choose files"; only chosen files can be imported.');
  });

  it('keeps each service’s picks apart', () => {
    const lists = new PickedFiles('"Choose file"; only chosen files can be imported.');
    const match = new PickedFiles('"Choose a file"; only chosen files can be read.');
    lists.allow(['/tmp/list.csv']);
    expect(() => match.assert(['/tmp/list.csv'])).toThrow('list.csv was not chosen with "Choose a file"');
  });
});
