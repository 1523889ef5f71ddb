// POST /v1/runs/:name/retry on the real API, Postgres and Redis (no worker: the end-to-end retry
// through the worker and Docker is test/runs-retry-e2e.test.ts). Runs are seeded directly.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedRun } from '../../../../test/results-seed.ts';
import { type SeededMember, startTestApi, type TestApi } from '../testing.ts';

let api: TestApi;
let owner: SeededMember;
let admin: SeededMember;
let creator: SeededMember;
let otherMember: SeededMember;
let viewer: SeededMember;
let outsider: SeededMember;

beforeAll(async () => {
  api = await startTestApi();
  owner = await api.seedWorkspace();
  admin = await api.addMember(owner.workspaceId, 'admin');
  creator = await api.addMember(owner.workspaceId, 'member');
  otherMember = await api.addMember(owner.workspaceId, 'member');
  viewer = await api.addMember(owner.workspaceId, 'viewer');
  outsider = await api.seedWorkspace();
});
afterAll(async () => {
  await api?.close();
});

const AGENTS = [
  { harness: 'terminus-2', model: 'openai/gpt-a' },
  { harness: 'terminus-2', model: 'openai/gpt-b' },
];

/**
 * 2 agents × 3 tasks × 1 attempt by `creator`: agent 0 passed, failed, errored; agent 1 passed,
 * cancelled, errored. Costs: agent 0's scored attempts 0.10 and 0.30; agent 1 reported none.
 */
async function endedRun(status: 'finished' | 'stopped' | 'failed' | 'running' = 'finished') {
  return seedRun(api.db, {
    workspaceId: owner.workspaceId,
    userId: creator.userId,
    tasks: 3,
    agents: AGENTS,
    attemptsPerTask: 1,
    status,
    attempt: (agent, task) => {
      if (agent === 0) {
        return [
          { outcome: 'passed' as const, cost_usd: 0.1 },
          { outcome: 'failed' as const, cost_usd: 0.3 },
          { outcome: 'errored' as const },
        ][task]!;
      }
      return [
        { outcome: 'passed' as const },
        { outcome: 'cancelled' as const },
        { outcome: 'errored' as const },
      ][task]!;
    },
  });
}

const retry = (name: string, token: string, dryRun = false) =>
  api.request('POST', `/v1/runs/${encodeURIComponent(name)}/retry${dryRun ? '?dry_run=true' : ''}`, {
    token,
    body: {},
  });

describe('POST /v1/runs/:name/retry?dry_run=true', () => {
  it('counts the unscored attempts per agent and estimates their cost; writes nothing', async () => {
    const run = await endedRun();
    const before = await api.db.attempt.findMany({ where: { runId: run.runId }, orderBy: { id: 'asc' } });
    const res = await retry(run.runName, creator.token, true);
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d).toMatchObject({ name: run.runName, dry_run: true, status: 'finished', requeued_attempts: 3 });
    expect(d.agents[0]).toMatchObject({
      agent_index: 0,
      errored: 1,
      cancelled: 0,
      attempts: 1,
      cost_basis: 'this_run',
    });
    expect(d.agents[0].mean_cost_usd).toBeCloseTo(0.2);
    expect(d.agents[0].estimated_cost_usd).toBeCloseTo(0.2);
    expect(d.agents[1]).toMatchObject({
      agent_index: 1,
      errored: 1,
      cancelled: 1,
      attempts: 2,
      cost_basis: 'unknown',
      estimated_cost_usd: null,
    });
    expect(d.estimated_cost_usd).toBeNull();
    expect(d.cost_note).toContain('openai/gpt-b');
    const after = await api.db.attempt.findMany({ where: { runId: run.runId }, orderBy: { id: 'asc' } });
    expect(after).toEqual(before);
    expect((await api.db.run.findUniqueOrThrow({ where: { id: run.runId } })).status).toBe('finished');
  });

  it('takes the mean cost from earlier runs of the benchmark with the same harness and model', async () => {
    const earlier = await seedRun(api.db, {
      workspaceId: owner.workspaceId,
      userId: creator.userId,
      tasks: 2,
      agents: [AGENTS[1]!],
      attemptsPerTask: 1,
      attempt: (_agent, task) => ({ outcome: 'passed', cost_usd: task === 0 ? 1 : 3 }),
    });
    const run = await seedRun(api.db, {
      workspaceId: owner.workspaceId,
      userId: creator.userId,
      benchmarkId: earlier.benchmarkId,
      tasks: 2,
      agents: [AGENTS[1]!],
      attemptsPerTask: 1,
      attempt: () => ({ outcome: 'errored' }),
    });
    // seedRun dates every run an hour back: make the earlier one earlier
    await api.db.run.update({
      where: { id: earlier.runId },
      data: { createdAt: new Date(Date.now() - 7_200_000) },
    });
    const res = await retry(run.runName, owner.token, true);
    expect(res.status).toBe(200);
    expect(res.body.data.agents[0]).toMatchObject({ cost_basis: 'earlier_runs', attempts: 2 });
    expect(res.body.data.agents[0].estimated_cost_usd).toBeCloseTo(4);
    expect(res.body.data.estimated_cost_usd).toBeCloseTo(4);
    expect(res.body.data.cost_note).toBeNull();
  });
});

describe('POST /v1/runs/:name/retry', () => {
  it('re-queues only the errored and cancelled attempts, keeps the scored ones and the earlier try', async () => {
    const run = await endedRun('stopped');
    const before = await api.db.attempt.findMany({ where: { runId: run.runId } });
    await api.db.attempt.updateMany({
      where: { runId: run.runId, outcome: 'errored' },
      data: { errorClass: 'model_provider', errorMessage: 'upstream 504', tryCount: 1 },
    });
    const res = await retry(run.runName, creator.token);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      dry_run: false,
      previous_status: 'stopped',
      status: 'queued',
      requeued_attempts: 3,
    });
    const after = await api.db.attempt.findMany({ where: { runId: run.runId } });
    expect(after.map((a) => a.id).sort()).toEqual(before.map((a) => a.id).sort());
    for (const old of before) {
      const now = after.find((a) => a.id === old.id)!;
      if (old.outcome === 'passed' || old.outcome === 'failed') {
        expect(now).toEqual(old); // untouched, to the last column
      } else {
        expect(now).toMatchObject({
          status: 'queued',
          outcome: null,
          errorClass: null,
          dispatchedAt: null,
          finishedAt: null,
        });
        const history = now.history as { outcome: string; error_message: string | null }[];
        expect(history.at(-1)).toMatchObject({ outcome: old.outcome, retried_by: creator.email });
        if (old.outcome === 'errored') expect(history.at(-1)?.error_message).toBe('upstream 504');
      }
    }
    const row = await api.db.run.findUniqueOrThrow({ where: { id: run.runId } });
    expect(row.status).toBe('queued');
    expect(row.finishedAt).toBeNull();

    const events = await api.request('GET', `/v1/runs/${run.runName}/events?limit=100`, {
      token: viewer.token,
    });
    const retried = events.body.items.filter((e: { step: string }) => e.step === 'attempt.retried');
    expect(retried).toHaveLength(3);
    expect(retried.map((e: { message: string }) => e.message).join('\n')).toContain(
      'ended errored (model_provider: upstream 504)',
    );
    expect(events.body.items.some((e: { step: string }) => e.step === 'run.retried')).toBe(true);

    // runs info shows the earlier try among the attempt's retries
    const info = await api.request('GET', `/v1/runs/${run.runName}`, { token: viewer.token });
    const erroredIds = before.filter((a) => a.outcome === 'errored').map((a) => a.id);
    const shown = info.body.data.attempts.find((a: { id: string }) => a.id === erroredIds[0]);
    expect(shown.retries.at(-1)).toMatchObject({ outcome: 'errored', error_message: 'upstream 504' });

    // the run is active again: a second retry is refused until it ends
    const again = await retry(run.runName, creator.token);
    expect(again.status).toBe(409);
    expect(again.body.error.message).toContain('is queued');
  });

  it('lets an admin retry a run someone else created', async () => {
    const run = await endedRun('failed');
    const res = await retry(run.runName, admin.token);
    expect(res.status).toBe(200);
    expect(res.body.data.requeued_attempts).toBe(3);
  });

  it('refuses a member who did not create the run and a viewer (403), nothing changed', async () => {
    const run = await endedRun();
    for (const member of [otherMember, viewer]) {
      for (const dry of [true, false]) {
        const res = await retry(run.runName, member.token, dry);
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe('FORBIDDEN');
      }
    }
    const other = await retry(run.runName, otherMember.token);
    expect(other.body.error.message).toContain('creator');
    expect(await api.db.attempt.count({ where: { runId: run.runId, status: 'queued' } })).toBe(0);
    expect((await api.db.run.findUniqueOrThrow({ where: { id: run.runId } })).status).toBe('finished');
  });

  it("answers 404 for another workspace's run", async () => {
    const run = await endedRun();
    const res = await retry(run.runName, outsider.token);
    expect(res.status).toBe(404);
    expect(await api.db.attempt.count({ where: { runId: run.runId, status: 'queued' } })).toBe(0);
  });

  it('refuses an active run with 409 and says why', async () => {
    const run = await endedRun('running');
    for (const dry of [true, false]) {
      const res = await retry(run.runName, creator.token, dry);
      expect(res.status).toBe(409);
      expect(res.body.error.message).toContain('is running: only a run that has ended');
    }
  });

  it('refuses a run with nothing unscored (409)', async () => {
    const run = await seedRun(api.db, {
      workspaceId: owner.workspaceId,
      userId: creator.userId,
      tasks: 2,
      agents: [AGENTS[0]!],
      attemptsPerTask: 1,
      attempt: (_a, task) => ({ outcome: task === 0 ? 'passed' : 'failed' }),
    });
    const res = await retry(run.runName, creator.token);
    expect(res.status).toBe(409);
    expect(res.body.error.message).toContain('nothing to retry');
    const preview = await retry(run.runName, creator.token, true);
    expect(preview.status).toBe(200);
    expect(preview.body.data.requeued_attempts).toBe(0);
  });

  it('refuses a run whose tasks changed digest since, naming the tasks (409)', async () => {
    const run = await endedRun();
    const planned = await api.db.attempt.findFirstOrThrow({ where: { runId: run.runId } });
    expect(planned.taskDigest).not.toBeNull(); // recorded by the database on insert
    await api.db.task.update({ where: { id: run.taskIds[1]! }, data: { digest: 'sha256:changed' } });
    for (const dry of [true, false]) {
      const res = await retry(run.runName, creator.token, dry);
      expect(res.status).toBe(409);
      expect(res.body.error.message).toContain(run.taskNames[1]!);
      expect(res.body.error.message).not.toContain(run.taskNames[0]!);
      expect(res.body.error.details.tasks[0]).toMatchObject({
        task: run.taskNames[1],
        now: 'sha256:changed',
      });
    }
    expect(await api.db.attempt.count({ where: { runId: run.runId, status: 'queued' } })).toBe(0);
  });
});
