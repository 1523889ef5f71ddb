// What a service needs of the app: its database and its configuration. The Fastify instance
// satisfies it, so routes pass `app` and pages pass `ctx.app`; a service never sees a request.
import type { Db } from '@osmosis/db';
import type { ApiConfig } from '../config.ts';

export interface ServiceDeps {
  db: Db;
  config: ApiConfig;
}
