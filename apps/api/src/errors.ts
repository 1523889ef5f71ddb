// The one error shape of the API: `{error: {code, message, details}}`. Route code throws
// `ApiError`; the error handler turns everything else (validation, body limit, Prisma
// conflicts, crashes) into the same shape without leaking internals.
import {
  ERROR_CODE_OF_STATUS,
  ERROR_STATUS,
  type ErrorBody,
  type ErrorCode,
  type FieldIssue,
} from '@osmosis/contracts';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: unknown;
  /** extra response headers (e.g. Retry-After) */
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, details?: unknown, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.details = details;
    this.headers = headers;
  }

  static notFound(what = 'resource'): ApiError {
    return new ApiError('NOT_FOUND', `${what} not found`);
  }
  static forbidden(message = 'your role does not allow this'): ApiError {
    return new ApiError('FORBIDDEN', message);
  }
  static conflict(message: string, details?: unknown): ApiError {
    return new ApiError('CONFLICT', message, details);
  }
  static validation(message: string, issues: FieldIssue[]): ApiError {
    return new ApiError('VALIDATION_ERROR', message, { issues });
  }
  static unauthenticated(message = 'a valid API token is required'): ApiError {
    return new ApiError('UNAUTHENTICATED', message);
  }

  toBody(): ErrorBody {
    return errorBody(this.code, this.message, this.details);
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

export function errorBody(code: ErrorCode, message: string, details?: unknown): ErrorBody {
  return { error: { code, message, details: details ?? null } };
}

const CONTEXT_NAMES: Record<string, string> = {
  querystring: 'query',
  params: 'params',
  body: 'body',
  headers: 'headers',
};

function validationIssues(error: FastifyError): FieldIssue[] {
  const context = CONTEXT_NAMES[error.validationContext ?? 'body'] ?? error.validationContext ?? 'body';
  return (error.validation ?? []).map((issue) => {
    const segments = (issue.instancePath ?? '').split('/').filter(Boolean);
    // zod reports a missing/unknown key on the parent: name the key itself
    const params = issue.params as { keys?: string[] } | undefined;
    if (issue.keyword === 'unrecognized_keys' && params?.keys?.length) {
      return {
        path: [context, ...segments, params.keys.join(',')].join('.'),
        message: issue.message ?? 'invalid',
      };
    }
    return { path: [context, ...segments].join('.'), message: issue.message ?? 'invalid' };
  });
}

interface PrismaLikeError {
  code?: string;
  meta?: { target?: unknown; modelName?: string };
}

// database unreachable / timed out / connection dropped: Prisma codes, driver-adapter kinds, errno codes
const UNAVAILABLE_CODES = new Set([
  'P1003',
  '3D000',
  'P1001',
  'P1002',
  'P1008',
  'P1017',
  'P2024',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  '57P01',
  '57P03',
]);
const UNAVAILABLE_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
]);

function isUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    const e = current as {
      code?: unknown;
      kind?: unknown;
      cause?: unknown;
      meta?: { driverAdapterError?: unknown };
    };
    if (typeof e.code === 'string' && UNAVAILABLE_CODES.has(e.code)) return true;
    if (typeof e.kind === 'string' && UNAVAILABLE_KINDS.has(e.kind)) return true;
    current = e.meta?.driverAdapterError ?? e.cause;
  }
  return false;
}

/** Fastify's client errors whose own message says what is wrong but not how to fix it. */
const FRAMEWORK_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE:
    'unsupported Content-Type for this route: send the body as JSON with "Content-Type: application/json" (POST /v1/benchmarks/archive takes the archive itself, see its documentation)',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH:
    'the request body is not as long as its Content-Length header says: send the header the body has, or let your HTTP client set it',
};

/** Maps any thrown value to {status, body}; exported for tests and for other error paths. */
export function toErrorResponse(error: unknown): {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
  internal: boolean;
} {
  if (isApiError(error)) {
    return { status: error.status, body: error.toBody(), headers: error.headers, internal: false };
  }
  const fastifyError = error as FastifyError & PrismaLikeError;
  if (
    hasZodFastifySchemaValidationErrors(error) ||
    (fastifyError?.validation && fastifyError.validation.length > 0)
  ) {
    const issues = validationIssues(fastifyError);
    const summary = issues.map((i) => `${i.path}: ${i.message}`).join('; ');
    return {
      status: 400,
      body: errorBody('VALIDATION_ERROR', `invalid request: ${summary}`, { issues }),
      headers: {},
      internal: false,
    };
  }
  if (error && typeof error === 'object' && isResponseSerializationError(error) && 'cause' in error) {
    return { status: 500, body: errorBody('INTERNAL', 'internal server error'), headers: {}, internal: true };
  }
  if (isUnavailable(error)) {
    return {
      status: 503,
      body: errorBody('UNAVAILABLE', 'a backing service is unavailable; try again later'),
      headers: { 'retry-after': '5' },
      internal: true,
    };
  }
  // Prisma: unique constraint → 409; record to update/delete not found → 404
  if (fastifyError?.code === 'P2002') {
    return {
      status: 409,
      body: errorBody('CONFLICT', 'a resource with the same unique fields already exists'),
      headers: {},
      internal: false,
    };
  }
  if (fastifyError?.code === 'P2025') {
    return { status: 404, body: errorBody('NOT_FOUND', 'resource not found'), headers: {}, internal: false };
  }
  const status = typeof fastifyError?.statusCode === 'number' ? fastifyError.statusCode : 500;
  if (status === 413 || fastifyError?.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return {
      status: 413,
      body: errorBody('PAYLOAD_TOO_LARGE', 'request body is too large'),
      headers: {},
      internal: false,
    };
  }
  const explained =
    typeof fastifyError?.code === 'string' ? FRAMEWORK_MESSAGES[fastifyError.code] : undefined;
  if (explained) {
    return { status: 400, body: errorBody('VALIDATION_ERROR', explained), headers: {}, internal: false };
  }
  if (status >= 400 && status < 500) {
    const code = ERROR_CODE_OF_STATUS[status] ?? 'VALIDATION_ERROR';
    const mapped = ERROR_STATUS[code];
    // fastify's own client errors (bad JSON, wrong content type, ...) carry safe messages
    return {
      status: mapped,
      body: errorBody(code, fastifyError.message || 'bad request'),
      headers: {},
      internal: false,
    };
  }
  return { status: 500, body: errorBody('INTERNAL', 'internal server error'), headers: {}, internal: true };
}

export function errorHandler(
  this: unknown,
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  const { status, body, headers, internal } = toErrorResponse(error);
  if (internal) request.log.error({ err: error }, 'request failed');
  else if (status >= 400) request.log.info({ code: body.error.code, status }, body.error.message);
  clearFileHeaders(reply);
  reply.code(status).headers(headers).header('content-type', 'application/json; charset=utf-8').send(body);
}

/**
 * Drops the headers a download set for its file. A download may fail after it described the
 * file (type, range, length, attachment name): those headers would mislabel the error sent
 * instead (a length the error body does not have holds the connection), and a non-JSON type
 * makes Fastify refuse to serialize a JSON error and answer in its own shape.
 */
export function clearFileHeaders(reply: FastifyReply): void {
  for (const header of FILE_HEADERS) reply.removeHeader(header);
}

const FILE_HEADERS = [
  'content-type',
  'content-length',
  'content-range',
  'content-disposition',
  'content-encoding',
  'accept-ranges',
];

/** Errors Fastify raises before routing (a URL that is not valid percent-encoding): the one error shape. */
export function frameworkErrorHandler(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  if (error.code === 'FST_ERR_BAD_URL') {
    const message =
      'the URL is not valid percent-encoding (a % must be followed by two hex digits forming UTF-8): encode each path segment and query value, e.g. with encodeURIComponent';
    request.log.info({ code: error.code }, message);
    reply.code(400).send(errorBody('VALIDATION_ERROR', message, { issues: [{ path: 'url', message }] }));
    return;
  }
  errorHandler(error, request, reply);
}

export function notFoundHandler(request: FastifyRequest, reply: FastifyReply): void {
  reply
    .code(404)
    .send(errorBody('NOT_FOUND', `route ${request.method} ${request.url.split('?')[0]} not found`));
}
