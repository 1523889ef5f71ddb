// Where a Harbor export takes the run's lock from: the platform's run lock (services/run-lock.ts).
// The export writes it as osmosis-lock.json and maps it to Harbor's JobLock for lock.json
// (harbor-export/job-lock.ts).
import { runLockFor } from '../run-lock.ts';
import type { ExportDeps } from './export.ts';

export const exportLockSource: ExportDeps['lockFor'] = runLockFor;
