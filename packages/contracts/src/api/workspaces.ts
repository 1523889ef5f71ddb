// Workspaces: the tenant. A caller sees only workspaces it is a member of.
import { z } from 'zod';
import { WorkspaceSummary } from './auth.ts';
import { dataOf, listOf, MemberRole, PageQuery } from './common.ts';
import { CreatedApiToken } from './tokens.ts';

/** Workspace names: what `--workspace NAME` takes. */
export const WorkspaceName = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]*$/,
    'letters, digits, ".", "_" and "-", starting with a letter or digit',
  );

export const WorkspaceWithRole = WorkspaceSummary.extend({
  role: MemberRole.describe("The caller's role in the workspace"),
});
export type WorkspaceWithRole = z.infer<typeof WorkspaceWithRole>;

export const ListWorkspacesQuery = PageQuery;
export const ListWorkspacesResponse = listOf(WorkspaceWithRole);
export type ListWorkspacesResponse = z.infer<typeof ListWorkspacesResponse>;

export const WorkspaceParams = z.object({ id: z.string().min(1).describe("The workspace's id") });
export const GetWorkspaceResponse = dataOf(WorkspaceWithRole);
export type GetWorkspaceResponse = z.infer<typeof GetWorkspaceResponse>;

export const CreateWorkspaceBody = z
  .object({
    name: WorkspaceName.describe("The new workspace's name (letters, digits, . _ -)"),
    token_name: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .optional()
      .describe('name of the API token issued for the caller in the new workspace'),
  })
  .strict();
export type CreateWorkspaceBody = z.infer<typeof CreateWorkspaceBody>;

/** The new workspace (caller is its owner) and a token for it, shown once. */
export const CreateWorkspaceResponse = dataOf(
  z.object({
    workspace: WorkspaceWithRole.describe('The new workspace; the caller is its owner'),
    token: CreatedApiToken.describe('A token of the caller for the new workspace, shown once'),
  }),
);
export type CreateWorkspaceResponse = z.infer<typeof CreateWorkspaceResponse>;
