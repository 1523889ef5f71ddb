// How the OpenAPI document (`GET /openapi.json`, `/docs`) is made from the routes' zod schemas:
// fastify-type-provider-zod turns each schema into JSON Schema (zod's `.describe()` texts become
// field and parameter descriptions), and this module adds what it leaves out: the tags' texts, a
// description per response status instead of @fastify/swagger's "Default Response", and only the
// components some operation reaches (every exported contract is registered, openapi-components.ts).
import type { SwaggerOptions } from '@fastify/swagger';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';

const TAGS: { name: string; description: string }[] = [
  { name: 'health', description: 'Liveness and readiness of the API process (no token needed).' },
  { name: 'auth', description: 'Who the token belongs to, and in which workspaces.' },
  { name: 'cli', description: "The CLI's device login: a browser approves a code the CLI shows." },
  { name: 'workspaces', description: 'Workspaces: the unit of isolation of runs, benchmarks and secrets.' },
  { name: 'members', description: 'Members of a workspace, their roles and invitations.' },
  { name: 'users', description: 'Accounts of the deployment (operators only).' },
  { name: 'tokens', description: 'API tokens of the calling user.' },
  { name: 'secrets', description: 'Encrypted secrets (model API keys): values are never returned.' },
  { name: 'benchmarks', description: 'Benchmarks (task sets) of a workspace: sources, sync, tasks.' },
  { name: 'runs', description: 'Runs: submit a config, follow, stop, retry, read events and attempts.' },
  { name: 'results', description: 'Scores of runs: results, comparisons, leaderboards and downloads.' },
  {
    name: 'endpoint-hosts',
    description: 'Hosts a run may send model traffic to, besides the known providers.',
  },
  {
    name: 'git-links',
    description: 'Git repositories a benchmark may be synced from, with their credentials.',
  },
  { name: 'webhooks', description: 'HTTP callbacks on run events, signed, with their delivery log.' },
  { name: 'workers', description: 'Worker processes of the deployment: state and capacity.' },
  { name: 'queues', description: 'Job queues of the deployment: depth and failures.' },
];

/** What each status means on every route that can answer it. */
const STATUS_DESCRIPTIONS: Record<string, string> = {
  200: 'Success: the body below.',
  201: 'Created: the body describes the new resource.',
  202: 'Accepted: the work is queued and happens in the background.',
  204: 'Done: no body.',
  400: 'Invalid request (VALIDATION_ERROR, INVALID_CONFIG): `error.details.issues` names each offending field.',
  401: 'No valid API token (UNAUTHENTICATED): send `Authorization: Bearer osm_...`.',
  403: "The token's role in this workspace does not allow this (FORBIDDEN).",
  404: 'No such resource in this workspace (NOT_FOUND); those of other workspaces are not found either.',
  409: 'Conflicts with the current state (CONFLICT, BENCHMARK_NOT_READY): e.g. a name taken, a run already over.',
  413: 'The request body is larger than the server accepts (PAYLOAD_TOO_LARGE).',
  422: 'Understood but refused (MISSING_SECRETS, WORKSPACE_LIMIT_EXCEEDED): `error.details` lists what to fix.',
  429: 'Too many requests (RATE_LIMITED): wait before retrying (`Retry-After` says how many seconds, when sent).',
  500: 'Internal error (INTERNAL): the `x-request-id` response header finds it in the server log.',
  503: 'A dependency is unavailable (UNAVAILABLE): retry later.',
};

declare module 'fastify' {
  interface FastifySchema {
    /** Answers sent without a zod schema (a file, an event stream): status → [media type, what it is]. */
    otherResponses?: Record<number, [mediaType: string, description: string]>;
  }
}

type Transformed = ReturnType<typeof jsonSchemaTransform>;
type JsonObject = Record<string, unknown>;

/** Gives each response status its description (@fastify/swagger reads the schema's own). */
function describeResponses(transformed: Transformed, statusText = STATUS_DESCRIPTIONS): Transformed {
  const schema = transformed.schema as JsonObject | undefined;
  if (!schema || schema.hide) return transformed;
  const others = (schema.otherResponses ?? {}) as Record<string, [string, string]>;
  delete schema.otherResponses;
  if (Object.keys(others).length > 0) schema.response = { ...(schema.response as object) };
  for (const [status, [mediaType, description]] of Object.entries(others))
    (schema.response as JsonObject)[status] = {
      description,
      content: { [mediaType]: { schema: { type: 'string' } } },
    };
  const response = schema.response as Record<string, JsonObject> | undefined;
  for (const [status, body] of Object.entries(response ?? {})) {
    if (!body.description)
      response![status] = { ...body, description: statusText[status] ?? `HTTP ${status}.` };
  }
  return transformed;
}

/** The names of the components reachable from the paths (through other components too). */
function reachable(paths: unknown, schemas: Record<string, unknown>): Set<string> {
  const seen = new Set<string>();
  const pending: unknown[] = [paths];
  while (pending.length > 0) {
    const text = JSON.stringify(pending.pop());
    for (const match of text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      const name = match[1] as string;
      if (seen.has(name)) continue;
      seen.add(name);
      pending.push(schemas[name]);
    }
  }
  return seen;
}

/** The document without components no operation reaches (exported contracts the API never sends). */
function pruneComponents<T extends { paths?: unknown; components?: { schemas?: Record<string, unknown> } }>(
  document: T,
): T {
  const schemas = document.components?.schemas;
  if (!schemas) return document;
  const keep = reachable(document.paths, schemas);
  const kept = Object.fromEntries(Object.entries(schemas).filter(([name]) => keep.has(name)));
  return { ...document, components: { ...document.components, schemas: kept } };
}

export function swaggerOptions(publicUrl: string): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Osmosis benchmark platform API',
        description:
          'Versioned REST API (`/v1`). Every failure is `{error: {code, message, details}}`; one object is `{data}`; a list is `{items, total_count, has_more, next_offset}`.',
        version: '1.0.0',
      },
      servers: [{ url: publicUrl }],
      tags: TAGS,
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'API token (osm_...)' },
        },
      },
      security: [{ bearerAuth: [] }],
    },
    transform: (input) => describeResponses(jsonSchemaTransform(input)),
    transformObject: (input) => pruneComponents(jsonSchemaTransformObject(input)),
  };
}
