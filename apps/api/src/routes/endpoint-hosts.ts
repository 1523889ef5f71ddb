// The workspace's endpoint hosts: where its secret records may be sent as a model endpoint
// (contracts' endpoint-hosts.ts has the entry syntax and the matching). Every member reads the
// list; admins and owners add and remove entries (they decide where workspace secrets go). The
// known providers' hosts are built in: listed first, never stored, never removed. The entries:
// services/endpoint-hosts.ts.
import {
  DeleteEndpointHostResponse,
  EndpointHostParams,
  ListEndpointHostsQuery,
  ListEndpointHostsResponse,
  parseEndpointHost,
  SetEndpointHostResponse,
  STANDARD_ERROR_RESPONSES,
} from '@osmosis/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireRole } from '../auth.ts';
import { ApiError } from '../errors.ts';
import { allowEndpointHost, listEndpointHosts, removeEndpointHost } from '../services/endpoint-hosts.ts';

/** The canonical entry of a validated path parameter (the schema already refused bad ones). */
function canonical(raw: string): string {
  const parsed = parseEndpointHost(raw);
  if (!parsed.ok)
    throw ApiError.validation(parsed.message, [{ path: 'params.host', message: parsed.message }]);
  return parsed.host;
}

export const endpointHostRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/endpoint-hosts',
    {
      schema: {
        tags: ['endpoint-hosts'],
        summary: 'List allowed endpoint hosts',
        description:
          "Hosts the workspace's secret records may be sent to as a model endpoint: the built-in provider hosts (https), then the workspace's own entries.",
        querystring: ListEndpointHostsQuery,
        response: { 200: ListEndpointHostsResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => listEndpointHosts(app.db, request.auth.workspace.id, request.query),
  );

  app.put(
    '/endpoint-hosts/:host',
    {
      preHandler: requireRole('admin'),
      schema: {
        tags: ['endpoint-hosts'],
        summary: 'Allow an endpoint host',
        description:
          "Allow the workspace's secret records to be sent to a model endpoint on this host (`host`, `*.host`, `host:port`); admins and owners.",
        params: EndpointHostParams,
        response: { 200: SetEndpointHostResponse, 201: SetEndpointHostResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const host = canonical(request.params.host);
      const data = await allowEndpointHost(app.db, request.auth.workspace, host, request.auth.user.id);
      if (data.source === 'workspace')
        request.log.info({ endpoint_host: host, created: data.created }, 'endpoint host allowed');
      reply.code(data.created ? 201 : 200);
      return { data };
    },
  );

  app.delete(
    '/endpoint-hosts/:host',
    {
      preHandler: requireRole('admin'),
      schema: {
        tags: ['endpoint-hosts'],
        summary: 'Remove an endpoint host',
        description:
          "Stop allowing a host for the workspace's secret records (runs already submitted keep their endpoints); admins and owners.",
        params: EndpointHostParams,
        response: { 200: DeleteEndpointHostResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const host = canonical(request.params.host);
      await removeEndpointHost(app.db, request.auth.workspace, host);
      request.log.info({ endpoint_host: host }, 'endpoint host removed');
      return { data: { host, deleted: true as const } };
    },
  );
};
