// The workspace's endpoint hosts: where its secret records may be sent as a model endpoint.
//   GET    /v1/endpoint-hosts          every member (the built-in provider hosts first)
//   PUT    /v1/endpoint-hosts/:host    admins and owners; 201 added, 200 already allowed
//   DELETE /v1/endpoint-hosts/:host    admins and owners; 404 when the workspace has no such entry
import { z } from 'zod';
import { MAX_ENDPOINT_HOST_LENGTH, parseEndpointHost } from '../endpoint-hosts.ts';
import { dataOf, listOf, PageQuery, Timestamp } from './common.ts';
import { SecretUser } from './secrets.ts';

/** A host entry as given: refused with the reason when it is not a host, `*.host` or `host:port`. */
export const EndpointHostString = z
  .string()
  .max(MAX_ENDPOINT_HOST_LENGTH)
  .superRefine((value, ctx) => {
    const parsed = parseEndpointHost(value);
    if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.message });
  });

export const EndpointHostParams = z.object({
  host: EndpointHostString.describe('`host`, `*.host` (its sub-domains) or `host:port`'),
});
export type EndpointHostParams = z.infer<typeof EndpointHostParams>;

export const ListEndpointHostsQuery = PageQuery;

export const EndpointHostSource = z.enum(['built_in', 'workspace']);

export const EndpointHost = z.object({
  host: z
    .string()
    .describe('canonical entry: lower case, punycode, `*.` for sub-domains, `:port` for one port'),
  source: EndpointHostSource.describe(
    "`built_in`: a known model provider's host (https only); `workspace`: added by an admin",
  ),
  added_by: SecretUser.nullable().describe(
    'The admin who added it; null for built-in hosts or a gone account',
  ),
  created_at: Timestamp.nullable().describe('When it was added; null for built-in hosts'),
});
export type EndpointHost = z.infer<typeof EndpointHost>;

export const ListEndpointHostsResponse = listOf(EndpointHost);
export type ListEndpointHostsResponse = z.infer<typeof ListEndpointHostsResponse>;

export const SetEndpointHostResponse = dataOf(
  EndpointHost.extend({ created: z.boolean().describe('True when newly added, false when already allowed') }),
);
export type SetEndpointHostResponse = z.infer<typeof SetEndpointHostResponse>;

export const DeleteEndpointHostResponse = dataOf(
  z.object({
    host: z.string().describe('The entry removed'),
    deleted: z.literal(true).describe('Always true'),
  }),
);
export type DeleteEndpointHostResponse = z.infer<typeof DeleteEndpointHostResponse>;
