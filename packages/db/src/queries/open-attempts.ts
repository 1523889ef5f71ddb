// The roll-ups count an agent's queued and running attempts together, as status 'open' (migration
// 20261208090200_rollup_open_status: a start changes no roll-up row). Readers that show running
// and queued apart count the running ones here, from attempts_in_flight_idx — at most the runs'
// max_concurrent_attempts rows — and take queued = open − running.
import type { Db } from '../client.ts';
import { Prisma } from '../generated/prisma/client.ts';
import { attemptInFlight } from './in-flight.ts';

/** The roll-ups' status of queued and running attempts. */
export const OPEN_STATUS = 'open';

/** Running attempts per (run, agent) of some runs (optionally only some agents). */
export async function runningByAgent(
  db: Pick<Db, '$queryRaw'>,
  runIds: readonly string[],
  agentIds?: readonly string[],
): Promise<{ run_id: string; agent_id: string; n: number }[]> {
  if (runIds.length === 0) return [];
  const agents = agentIds ? Prisma.sql`AND a.agent_id = ANY(${[...agentIds]}::uuid[])` : Prisma.empty;
  return db.$queryRaw<{ run_id: string; agent_id: string; n: number }[]>`
    SELECT a.run_id::text AS run_id, a.agent_id::text AS agent_id, count(*)::int AS n
    FROM attempts a
    WHERE a.run_id = ANY(${[...runIds]}::uuid[]) AND ${attemptInFlight('a')} AND a.status = 'running' ${agents}
    GROUP BY a.run_id, a.agent_id`;
}
