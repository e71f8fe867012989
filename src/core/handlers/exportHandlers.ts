// Exports started from the UI: the transport decides where the file goes (save dialog or the
// browser-mode exports folder); the job runs in the background in core.exportJobs.
import { isWholeRecord, resolveExportFields, type ExportOutput } from '../../shared/exportFields';
import { listControlsInput } from '../../shared/listControls';
import type { ExportJob } from '../../shared/contract';
import type { Core } from '../createCore';
import { fileStamp } from '../fs/fileStamp';
import type { ExportFormat } from '../export/exportAudience';
import type { HandlerRegistry } from './registry';
import { statesRequest } from './statesInput';
import type { HandlerDeps } from './types';

/** audience-CA-20260101-093000.csv (audience-CA-NY-…, audience-12-states-…, audience-all-states-…): sorts by time, says what it holds. */
export function defaultExportName(state: string | string[], format: ExportFormat, now = new Date()): string {
  const states = Array.isArray(state) ? state : [state];
  const what = states.length >= ALL_STATES ? 'all-states' : states.length > 3 ? `${states.length}-states` : states.join('-');
  return `audience-${what}-${fileStamp(now)}.${format}`;
}
const ALL_STATES = 51;

/** The answer when the user dismissed the save dialog: nothing started, nothing to poll (empty id). */
function notStarted(format: ExportFormat): ExportJob {
  return { id: '', status: 'cancelled', format, path: '', written: 0, total: 0, recordsPerSecond: 0, secondsLeft: null };
}

export function registerExportHandlers(registry: HandlerRegistry, core: Core, deps: HandlerDeps): void {
  registry.register('export/start', async ({ format, header, fields, values, fileName, ...input }) => {
    const audience = statesRequest(input);
    const { states } = audience;
    // Unknown field names are refused here, before a save dialog opens or a file is written.
    const output: ExportOutput = { fields: resolveExportFields(fields), values: values ?? 'codes' };
    const path = await deps.resolveExportPath(fileName ?? defaultExportName(states, format), format);
    if (path === null) return notStarted(format);
    const definition = {
      state: audience.state,
      ...(states.length > 1 ? { states } : {}),
      filters: input.filters ?? [],
      ...listControlsInput(audience.listControls),
      ...(isWholeRecord(output) ? {} : { output }),
    };
    return core.audiences.startExport(audience, { definition, format, header, path, actor: deps.actor ?? 'UI' });
  });
  registry.register('export/status', ({ id }) => core.exportJobs.status(id));
  registry.register('export/cancel', ({ id }) => core.exportJobs.cancel(id));
}
