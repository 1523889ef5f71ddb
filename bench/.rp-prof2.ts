import { createDb } from '@osmosis/db';
import { compareRunOr404, compareRuns } from '../apps/api/src/services/run-compare.ts';
import { runGrid, runPageRun } from '../apps/api/src/services/run-page.ts';
import { runResultsByName } from '../apps/api/src/services/run-results.ts';
import { previewRetry } from '../apps/api/src/services/run-retry.ts';
import { faultsOfRuns } from '../apps/api/src/services/workers.ts';
const db = createDb('postgresql://osmosis:osmosis@127.0.0.1:54329/osmosis_bench_results_cd2656ab', 4);
const run = await db.run.findFirstOrThrow({ where: { name: 'scale-run' } });
const ws = run.workspaceId;
const time = async (label: string, f: () => Promise<unknown>) => {
  const ms: number[] = [];
  for (let i = 0; i < 7; i++) { const t = performance.now(); await f(); ms.push(performance.now() - t); }
  ms.sort((x, y) => x - y);
  console.log(label.padEnd(14), 'median', ms[3]!.toFixed(1), ' all', ms.map((m) => m.toFixed(0)).join(' '));
};
await time('results', () => runResultsByName(db, ws, 'scale-run'));
await time('pageRun', () => runPageRun(db, ws, 'scale-run'));
await time('faults', async () => { const r = (await runResultsByName(db, ws, 'scale-run'))!; return faultsOfRuns(db, [{ id: run.id, status: r.status, progress: r.progress }], 0.1); });
await time('grid', () => runGrid(db, run.id, { show: '', category: '', offset: 0, limit: 50 }));
await time('compare', async () => compareRuns(db, await compareRunOr404(db, ws, 'scale-run'), null, '0,1'));
await time('retryPreview', () => previewRetry(db, ws, 'scale-run', { userId: run.createdById, role: 'owner' }, { checkTasks: false }));
await db.$disconnect();
