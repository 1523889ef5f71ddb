// A workspace's limit on attempts running at once across all its runs. Its admins set it; the
// operator's maximum (OSMOSIS_WORKSPACE_MAX_CONCURRENT_ATTEMPTS) bounds it, so a workspace can
// lower its share but never raise it past what the operator allows.

/** The operator's maximum when the setting is absent. */
export const DEFAULT_WORKSPACE_MAX_CONCURRENT_ATTEMPTS = 64;

/** The largest operator maximum either app accepts (both validate the same setting with it). */
export const WORKSPACE_MAX_CONCURRENT_ATTEMPTS_CEILING = 1_000_000;

/** The limit in force: the workspace's own setting, never above the operator's maximum. */
export function effectiveWorkspaceLimit(
  workspaceSetting: number | null | undefined,
  operatorMax: number,
): number {
  if (workspaceSetting == null) return operatorMax;
  return Math.min(workspaceSetting, operatorMax);
}
