// POST /api/cli/device/authorize and POST /api/cli/device/token — the CLI's device login, with the
// upstream Osmosis CLI's shapes (osmosis-sdk-python `osmosis_ai/platform/auth/flow.py`; contracts
// api/accounts.ts), outside /v1 and without authentication. Errors are OAuth's `{error,
// error_description}`, as upstream reads them: the poll's `authorization_pending`, `slow_down`,
// `expired_token`, `access_denied` and `invalid_grant` are HTTP 400 (upstream gives up at once
// on a 429, so slowing down is never a 429); a client over its limits gets 429. The rules:
// services/device-logins.ts. The person approves on the /device page (pages/device.ts).
import {
  DeviceAuthorizeBody,
  DeviceAuthorizeResponse,
  DeviceErrorBody,
  DeviceTokenBody,
  DeviceTokenResponse,
} from '@osmosis/contracts';
import type { FastifyError, FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { isApiError } from '../errors.ts';
import { AuthFailureLimiter } from '../rate-limit.ts';
import { pollDeviceLogin, startDeviceLogin } from '../services/device-logins.ts';

function oauthError(reply: FastifyReply, status: number, error: string, description: string) {
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .send({ error, error_description: description });
}

export const cliDeviceRoutes: FastifyPluginAsyncZod = async (app) => {
  // unknown device codes, per client: past the limit, its polls are refused without a lookup
  const unknownCodes = new AuthFailureLimiter(app.config.authFailureLimit, app.config.authFailureWindowMs);

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = isApiError(error) ? error.status : error.validation ? 400 : (error.statusCode ?? 500);
    if (status < 500) return oauthError(reply, status, 'invalid_request', error.message);
    request.log.error({ err: error }, 'device login failed');
    return oauthError(reply, 500, 'server_error', 'the platform failed to answer; try again');
  });

  app.post(
    '/api/cli/device/authorize',
    {
      config: { public: true },
      schema: {
        tags: ['cli'],
        summary: 'Start a device login',
        description:
          "Start the CLI's device login (RFC 8628): a device code to poll with and a user code to approve on /device.",
        body: DeviceAuthorizeBody,
        response: { 200: DeviceAuthorizeResponse, 429: DeviceErrorBody },
        security: [],
      },
    },
    async (request, reply) => {
      const body = request.body;
      const started = await startDeviceLogin(app.db, {
        deviceName: body.deviceName ?? body.device_name,
        workspaceHint: body.workspace,
        clientIp: request.ip,
        publicUrl: app.config.publicUrl,
      });
      if (!started.ok)
        return oauthError(reply.header('retry-after', '60'), 429, 'rate_limited', started.message);
      reply.header('cache-control', 'no-store');
      return started.body;
    },
  );

  app.post(
    '/api/cli/device/token',
    {
      config: { public: true },
      schema: {
        tags: ['cli'],
        summary: 'Poll a device login',
        description:
          'Poll the device login: the token once the code is approved; else 400 with authorization_pending, slow_down, expired_token, access_denied or invalid_grant.',
        body: DeviceTokenBody,
        response: { 200: DeviceTokenResponse, 400: DeviceErrorBody, 429: DeviceErrorBody },
        security: [],
      },
    },
    async (request, reply) => {
      const retry = unknownCodes.ipRetryAfter(request.ip);
      if (retry > 0)
        return oauthError(
          reply.header('retry-after', String(retry)),
          429,
          'rate_limited',
          'too many unknown device codes from this address; try again later',
        );
      const result = await pollDeviceLogin(app.db, request.body.device_code);
      if (result.ok) {
        reply.header('cache-control', 'no-store');
        return result.body;
      }
      if (!result.known) unknownCodes.recordFailure(request.ip, null);
      return oauthError(reply, 400, result.error, result.description);
    },
  );
};
