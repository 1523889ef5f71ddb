// A workspace's limit on attempts in flight at once across all its runs: read, set by its admins
// within the operator's maximum (OSMOSIS_WORKSPACE_MAX_CONCURRENT_ATTEMPTS), and checked at
// submit. A config above the limit is refused, not capped, so a run never runs differently from
// what its config says; the dispatcher keeps the workspace within the limit at run time.
import type { RunConfig, WorkspaceLimitExceededDetails, WorkspaceLimits } from '@osmosis/contracts';
import { effectiveWorkspaceLimit } from '@osmosis/core';
import { type Db, workspaceAttemptsInFlight } from '@osmosis/db';
import { ApiError } from '../errors.ts';

const OPERATOR_SETTING = 'OSMOSIS_WORKSPACE_MAX_CONCURRENT_ATTEMPTS';

/** The workspace's limits as GET /v1/workspace/limits shows them. */
export async function readWorkspaceLimits(
  db: Db,
  workspaceId: string,
  operatorMax: number,
): Promise<WorkspaceLimits> {
  const [workspace, inFlight] = await Promise.all([
    db.workspace.findUnique({ where: { id: workspaceId }, select: { maxConcurrentAttempts: true } }),
    workspaceAttemptsInFlight(db, workspaceId),
  ]);
  if (!workspace) throw ApiError.notFound('workspace');
  const setting = workspace.maxConcurrentAttempts;
  return {
    max_concurrent_attempts: effectiveWorkspaceLimit(setting, operatorMax),
    workspace_max_concurrent_attempts: setting,
    operator_max_concurrent_attempts: operatorMax,
    attempts_in_flight: inFlight,
  };
}

/**
 * Sets the workspace's own limit (null: back to the operator's maximum). A value above the
 * operator's maximum is refused naming both numbers; nothing is written then.
 */
export async function setWorkspaceLimit(
  db: Db,
  workspaceId: string,
  value: number | null,
  operatorMax: number,
): Promise<WorkspaceLimits> {
  if (value !== null && value > operatorMax) {
    const message = `max_concurrent_attempts ${value} is above the operator's maximum of ${operatorMax} attempts at once (${OPERATOR_SETTING}): set at most ${operatorMax}, or null to use the maximum; only the platform's operator can raise it`;
    throw ApiError.validation(message, [{ path: 'body.max_concurrent_attempts', message }]);
  }
  await db.workspace.update({ where: { id: workspaceId }, data: { maxConcurrentAttempts: value } });
  return readWorkspaceLimits(db, workspaceId, operatorMax);
}

/**
 * Submit and preview: the workspace's limits, or WORKSPACE_LIMIT_EXCEEDED (422) when the config's
 * `[execution] max_concurrent_attempts` is above the limit in force.
 */
export async function checkRunAgainstWorkspaceLimit(
  db: Db,
  workspace: { id: string; name: string },
  config: RunConfig,
  fileName: string,
  settings: { workspaceMaxConcurrentAttempts: number },
): Promise<WorkspaceLimits> {
  const operatorMax = settings.workspaceMaxConcurrentAttempts;
  const limits = await readWorkspaceLimits(db, workspace.id, operatorMax);
  const requested = config.execution.max_concurrent_attempts;
  const limit = limits.max_concurrent_attempts;
  if (requested <= limit) return limits;
  // an admin can raise the workspace's own setting only up to the operator's maximum
  const raise =
    limit < operatorMax
      ? `ask a workspace admin to raise the limit (\`osmosis workspace limits --set N\`, operator maximum ${operatorMax})`
      : `ask the platform operator to raise ${OPERATOR_SETTING} (operator maximum ${operatorMax}, which this workspace already has)`;
  const details: WorkspaceLimitExceededDetails = {
    file_name: fileName,
    path: 'execution.max_concurrent_attempts',
    requested,
    max_concurrent_attempts: limit,
    operator_max_concurrent_attempts: operatorMax,
  };
  throw new ApiError(
    'WORKSPACE_LIMIT_EXCEEDED',
    `${fileName}: [execution] max_concurrent_attempts is ${requested}, above workspace ${workspace.name}'s limit of ${limit} attempts at once across its runs: lower max_concurrent_attempts to ≤ ${limit} or ${raise}`,
    details,
  );
}
