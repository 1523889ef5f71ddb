// Building blocks shared by every REST contract: envelopes, pagination, ids, roles, timestamps.
import { z } from 'zod';
import { ErrorBody, FieldIssue } from '../errors.ts';
import { WorkersSummary } from './workers.ts';

/** Role of a user in a workspace, strongest first. `viewer` is read only. */
export const MemberRole = z.enum(['owner', 'admin', 'member', 'viewer']);
export type MemberRole = z.infer<typeof MemberRole>;

/** Higher is stronger: `roleAtLeast(role, 'admin')` is true for admins and owners. */
export const ROLE_RANK: Record<MemberRole, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };
export function roleAtLeast(role: MemberRole, minimum: MemberRole): boolean {
  return ROLE_RANK[role] >= ROLE_RANK[minimum];
}

/** The weaker of two roles; `null` is no bound (a token without a role bound acts as its member). */
export function weakerRole(role: MemberRole, bound: MemberRole | null | undefined): MemberRole {
  if (!bound) return role;
  return ROLE_RANK[bound] < ROLE_RANK[role] ? bound : role;
}

/** ISO-8601 timestamp as sent over the wire (UTC, `Z`). */
export const Timestamp = z.iso.datetime({ offset: true });
export type Timestamp = z.infer<typeof Timestamp>;

export const Uuid = z.uuid();

/** An e-mail address as HTML forms accept it (single-label domains such as `owner@localhost` too). */
export const EmailAddress = z.email({ pattern: z.regexes.html5Email }).max(254);

/** `{data}`: one object. */
export function dataOf<T extends z.ZodType>(schema: T) {
  return z.object({ data: schema.describe('The object asked for') });
}

/** `{items, total_count, has_more, next_offset}`: one page of a list. */
export function listOf<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item).describe('This page of the list'),
    total_count: z.number().int().min(0).describe('How many there are in all pages'),
    has_more: z.boolean().describe('Whether a page follows this one'),
    next_offset: z
      .number()
      .int()
      .min(0)
      .nullable()
      .describe('The `offset` of the next page; null on the last page'),
  });
}
export type ListEnvelope<T> = {
  items: T[];
  total_count: number;
  has_more: boolean;
  next_offset: number | null;
};

export const MAX_PAGE_SIZE = 200;
/** `?limit=&offset=` of every list route. */
export const PageQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_PAGE_SIZE)
    .default(50)
    .describe(`How many items per page (1 to ${MAX_PAGE_SIZE})`),
  offset: z.coerce
    .number()
    .int()
    .min(0)
    .default(0)
    .describe('How many items to skip: `next_offset` of the previous page'),
});
export type PageQuery = z.infer<typeof PageQuery>;

/**
 * A yes/no query flag: `?force=true` (also `1`, `yes`); `false`, `0`, `no` or absent is false.
 * Anything else is a 400 naming the parameter, never a silent false.
 */
export const QueryFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { error: 'must be true or false' })
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

/** `?force=true`: confirm a destructive action that would also delete dependent rows. */
export const ForceQuery = z.object({
  force: QueryFlag.optional()
    .default(false)
    .describe('true (also 1, yes) to confirm deleting the dependent rows too; default false'),
});
export type ForceQuery = z.infer<typeof ForceQuery>;

/**
 * How deeply JSON may nest, in request bodies and in JSON the platform stores (harness
 * requirements, metadata). Deeper documents are refused with a 400 naming the field: a
 * thousand-deep document costs recursion everywhere it is read, serialized or stored.
 */
export const MAX_JSON_DEPTH = 32;

/** Nesting depth of a JSON value (a scalar is 0, `{}` and `[]` are 1), counted without recursion. */
export function jsonDepth(value: unknown, stopAt = Number.POSITIVE_INFINITY): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (current === null || typeof current !== 'object') continue;
    const here = depth + 1;
    if (here > deepest) deepest = here;
    if (deepest > stopAt) return deepest;
    for (const child of Object.values(current)) stack.push([child, here]);
  }
  return deepest;
}

/** A JSON object whose nesting stays within MAX_JSON_DEPTH (e.g. `harness_requirements`). */
export const BoundedJsonRecord = z
  .record(z.string(), z.unknown())
  .refine((value) => jsonDepth(value, MAX_JSON_DEPTH) <= MAX_JSON_DEPTH, {
    error: `nests deeper than ${MAX_JSON_DEPTH} levels`,
  });

/** The largest id of a bigserial column (run_events.id): cursors beyond it name no event. */
export const MAX_EVENT_ID = 9_223_372_036_854_775_807n;

/** A decimal event id within Postgres' bigint range. */
export function isEventId(value: string): boolean {
  return /^[0-9]{1,19}$/.test(value) && BigInt(value) <= MAX_EVENT_ID;
}

/** An event cursor in a query string (`?cursor=`, `?after=`): digits, at most 2^63 - 1. */
export const EventCursor = z.string().refine(isEventId, {
  error: 'a cursor is the next_cursor of a previous page (digits, at most 9223372036854775807)',
});

/** `details` of a VALIDATION_ERROR: one entry per offending field (`body.email`, `query.limit`). */
export const ValidationErrorDetails = z.object({ issues: z.array(FieldIssue) });
export type ValidationErrorDetails = z.infer<typeof ValidationErrorDetails>;

/** Error responses every authenticated route can give, for the OpenAPI document. */
export const STANDARD_ERROR_RESPONSES = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  409: ErrorBody,
  413: ErrorBody,
  429: ErrorBody,
  500: ErrorBody,
} as const;

export const HealthResponse = z.object({
  status: z.literal('ok').describe('Always ok: the process answers'),
});
export type HealthResponse = z.infer<typeof HealthResponse>;

export const DependencyState = z.object({
  ok: z.boolean().describe('Whether it answered within the readiness timeout'),
  error: z.string().optional().describe('Why not, when not: the first line of the error, URLs masked'),
});
export const ReadyResponse = z.object({
  status: z
    .enum(['ready', 'unavailable'])
    .describe('ready: Postgres and Redis answer (HTTP 200); else unavailable (503)'),
  checks: z
    .object({
      postgres: DependencyState.describe('The database'),
      redis: DependencyState.describe('The queue store'),
    })
    .describe('Each dependency of the API'),
  workers: WorkersSummary.optional().describe(
    'the workers, reported apart: none alive does not make the API unready',
  ),
});
export type ReadyResponse = z.infer<typeof ReadyResponse>;
