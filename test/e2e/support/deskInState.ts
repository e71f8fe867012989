// The setup most end-to-end files share: one desk (desk.ts) on the shared test dataset for the whole
// file, its page showing the dataset with a state chosen, stopped after the file's tests.
import { afterAll, beforeAll, inject } from 'vitest';
import { startDesk, stopDesk, type Desk } from './desk';

/**
 * Starts the desk in beforeAll and waits until the page shows the dataset with `state` chosen; stops it
 * in afterAll. The Desk returned is filled in by beforeAll, so read its fields inside tests and hooks,
 * not at the top of the file.
 */
export function useDeskInState(state = 'CA'): Desk {
  const desk = {} as Desk;
  let started: Desk | undefined;
  beforeAll(async () => {
    started = await startDesk(inject('datasetPath'));
    Object.assign(desk, started);
    await desk.page.getByTestId('dataset-info').waitFor();
    await desk.page.getByTestId('state-select').selectOption(state);
  });
  afterAll(() => stopDesk(started));
  return desk;
}
