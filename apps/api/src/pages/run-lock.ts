// The run page's line about its lock: the fingerprint (the run's identity: docs/reproducibility.md),
// a link to lock.json, and the run whose finished attempts it took over (reuse_from).
import type { Db } from '@osmosis/db';
import { runLockFor } from '../services/run-lock.ts';
import { type Html, html } from './html.ts';

export async function lockLine(
  db: Db,
  runId: string,
  self: string,
  reusedFrom: { name: string } | null,
): Promise<Html | string> {
  const lock = await runLockFor(db, runId);
  if (!lock) return '';
  const reused = reusedFrom
    ? await db.attempt.count({ where: { runId, reusedFromAttemptId: { not: null } } })
    : 0;
  return html`<dt>Lock</dt><dd>fingerprint <code>${lock.fingerprint}</code>${lock.complete ? '' : ' (run not ended yet)'} · <a href="${self}/files/lock.json">lock.json</a></dd>${
    reusedFrom
      ? html`<dt>Reused</dt><dd>${String(reused)} finished attempt(s) taken over from run <a href="/runs/${encodeURIComponent(reusedFrom.name)}">${reusedFrom.name}</a></dd>`
      : ''
  }`;
}
