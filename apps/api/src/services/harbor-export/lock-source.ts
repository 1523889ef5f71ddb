// Where a Harbor export takes the run's lock.json from. The run lock is made elsewhere
// (services/run-lock.ts, `runLockFor(db, runId)`): this is the one line that connects the two.
// While it is undefined, exports have no lock.json.
import type { ExportDeps } from './export.ts';

export const exportLockSource: ExportDeps['lockFor'] = undefined;
