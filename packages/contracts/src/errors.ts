import { z } from 'zod';

/**
 * Stable error codes. Clients (the CLI, other services) branch on these, never on messages.
 * HTTP status per code is fixed by ERROR_STATUS.
 */
export const ErrorCode = z.enum([
  'VALIDATION_ERROR',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'RATE_LIMITED',
  'BENCHMARK_NOT_READY',
  'MISSING_SECRETS',
  /** a run config asks for more attempts at once than the workspace's limit (api/workspace-limits.ts) */
  'WORKSPACE_LIMIT_EXCEEDED',
  'INVALID_CONFIG',
  'INTERACTIVE_REQUIRED',
  'INTERNAL',
  'UNAVAILABLE',
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

export const ERROR_STATUS: Record<ErrorCode, number> = {
  VALIDATION_ERROR: 400,
  INVALID_CONFIG: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  BENCHMARK_NOT_READY: 409,
  MISSING_SECRETS: 422,
  WORKSPACE_LIMIT_EXCEEDED: 422,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  INTERACTIVE_REQUIRED: 400,
  INTERNAL: 500,
  UNAVAILABLE: 503,
};

/**
 * The code of a failure that carries no error body of the platform's (fastify's own client errors,
 * a proxy's 502): named by its HTTP status. The API and the CLI read this one map.
 */
export const ERROR_CODE_OF_STATUS: Readonly<Record<number, ErrorCode>> = {
  400: 'VALIDATION_ERROR',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  422: 'VALIDATION_ERROR',
  429: 'RATE_LIMITED',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'UNAVAILABLE',
};

/** One shape for every failure the API returns: `{error: {code, message, details}}`. */
export const ErrorBody = z.object({
  error: z
    .object({
      code: ErrorCode.describe('Stable code to branch on; the HTTP status follows from it'),
      message: z.string().describe('What was wrong and how to fix it, for people'),
      details: z
        .unknown()
        .optional()
        .describe('Machine-readable particulars of some codes, e.g. `issues` of VALIDATION_ERROR'),
    })
    .describe('The failure'),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** A field problem inside VALIDATION_ERROR / INVALID_CONFIG details. */
export const FieldIssue = z.object({
  path: z.string().describe('Where: `body.email`, `query.limit`, `params.name`'),
  message: z.string().describe('What is wrong with it'),
});
export type FieldIssue = z.infer<typeof FieldIssue>;
