// Row → wire shape conversions shared by routes (snake_case, ISO timestamps).
import type { ApiTokenInfo, Member, MemberRole, UserSummary, WorkspaceSummary } from '@osmosis/contracts';

export function iso(date: Date): string;
export function iso(date: Date | null): string | null;
export function iso(date: Date | null): string | null {
  return date ? date.toISOString() : null;
}

export interface TokenRow {
  id: string;
  name: string;
  prefix: string;
  userId: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  maxRole: MemberRole | null;
  confined: boolean;
  parentId: string | null;
}

export function tokenInfo(row: TokenRow): ApiTokenInfo {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    user_id: row.userId,
    created_at: iso(row.createdAt),
    last_used_at: iso(row.lastUsedAt),
    expires_at: iso(row.expiresAt),
    revoked_at: iso(row.revokedAt),
    max_role: row.maxRole,
    confined: row.confined,
    parent_id: row.parentId,
  };
}

export function userSummary(user: { id: string; email: string; displayName: string | null }): UserSummary {
  return { id: user.id, email: user.email, display_name: user.displayName };
}

export function workspaceSummary(workspace: { id: string; name: string; createdAt: Date }): WorkspaceSummary {
  return { id: workspace.id, name: workspace.name, created_at: iso(workspace.createdAt) };
}

export function memberInfo(membership: {
  role: MemberRole;
  createdAt: Date;
  user: { id: string; email: string; displayName: string | null };
}): Member {
  return {
    user_id: membership.user.id,
    email: membership.user.email,
    display_name: membership.user.displayName,
    role: membership.role,
    joined_at: iso(membership.createdAt),
  };
}

/** The `{items, total_count, has_more, next_offset}` envelope for one page. */
export function page<T>(items: T[], total: number, offset: number) {
  const next = offset + items.length;
  return { items, total_count: total, has_more: next < total, next_offset: next < total ? next : null };
}

/** One page of rows as the envelope: the total and the rows read together, then converted. */
export async function pageOfRows<R, T>(
  offset: number,
  total: Promise<number>,
  rows: Promise<R[]>,
  convert: (rows: R[]) => T[] | Promise<T[]>,
) {
  const [count, found] = await Promise.all([total, rows]);
  return page(await convert(found), count, offset);
}
