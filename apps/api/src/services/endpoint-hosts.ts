// The workspace's endpoint hosts (the /v1/endpoint-hosts routes, submit's destination check):
// where its secret records may be sent as a model endpoint. The known providers' hosts are built
// in: listed first, never stored, never removed.
import { BUILT_IN_ENDPOINT_HOSTS, type EndpointHost, MAX_ENDPOINT_HOSTS } from '@osmosis/contracts';
import type { Db } from '@osmosis/db';
import { ApiError } from '../errors.ts';
import { iso, page } from './serialize.ts';
import { addCappedEntry, usersById } from './workspace-entries.ts';

interface HostRow {
  host: string;
  addedById: string;
  createdAt: Date;
}

interface Workspace {
  id: string;
  name: string;
}

/** The workspace's own entries (canonical), oldest first. */
export async function workspaceEndpointHosts(db: Db, workspaceId: string): Promise<string[]> {
  const rows = await db.endpointHost.findMany({
    where: { workspaceId },
    select: { host: true },
    orderBy: [{ createdAt: 'asc' }, { host: 'asc' }],
  });
  return rows.map((r) => r.host);
}

async function describe(db: Db, rows: HostRow[]): Promise<EndpointHost[]> {
  const byId = await usersById(
    db,
    rows.map((r) => r.addedById),
  );
  return rows.map((r) => ({
    host: r.host,
    source: 'workspace' as const,
    added_by: byId.get(r.addedById) ?? null,
    created_at: iso(r.createdAt),
  }));
}

const builtIn = (host: string): EndpointHost => ({
  host,
  source: 'built_in',
  added_by: null,
  created_at: null,
});

/** The built-in hosts, then the workspace's entries, oldest first: one page of them. */
export async function listEndpointHosts(db: Db, workspaceId: string, p: { limit: number; offset: number }) {
  const rows = await db.endpointHost.findMany({
    where: { workspaceId },
    select: { host: true, addedById: true, createdAt: true },
    orderBy: [{ createdAt: 'asc' }, { host: 'asc' }],
  });
  const all = [...BUILT_IN_ENDPOINT_HOSTS.map(builtIn), ...(await describe(db, rows))];
  return page(all.slice(p.offset, p.offset + p.limit), all.length, p.offset);
}

/** Allows a canonical host (idempotent: `created` false when allowed already or built in). */
export async function allowEndpointHost(
  db: Db,
  workspace: Workspace,
  host: string,
  userId: string,
): Promise<EndpointHost & { created: boolean }> {
  if (BUILT_IN_ENDPOINT_HOSTS.includes(host)) return { ...builtIn(host), created: false };
  const where = { workspaceId_host: { workspaceId: workspace.id, host } };
  const { row, created } = await addCappedEntry({
    find: () => db.endpointHost.findUnique({ where }),
    count: () => db.endpointHost.count({ where: { workspaceId: workspace.id } }),
    create: () => db.endpointHost.create({ data: { workspaceId: workspace.id, host, addedById: userId } }),
    limit: MAX_ENDPOINT_HOSTS,
    full: (count) =>
      ApiError.conflict(
        `workspace ${workspace.name} already allows ${count} endpoint hosts, the most it may hold: remove one first (\`osmosis workspace endpoint-hosts remove HOST\`), or use a \`*.domain\` entry`,
        { limit: MAX_ENDPOINT_HOSTS },
      ),
  });
  return { ...(await describe(db, [row]))[0]!, created };
}

/** Removes a canonical host: 409 for a built-in one, 404 when the workspace does not allow it. */
export async function removeEndpointHost(db: Db, workspace: Workspace, host: string): Promise<void> {
  if (BUILT_IN_ENDPOINT_HOSTS.includes(host))
    throw ApiError.conflict(
      `${host} is a built-in provider host and cannot be removed; to keep a workspace secret from a provider, delete the record or use personal records`,
    );
  const { count } = await db.endpointHost.deleteMany({ where: { workspaceId: workspace.id, host } });
  if (count === 0)
    throw new ApiError('NOT_FOUND', `workspace ${workspace.name} has no endpoint host ${host}`, {
      hint: 'see `osmosis workspace endpoint-hosts list`',
    });
}
