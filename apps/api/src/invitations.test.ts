// Invitations (POST /v1/members, /v1/invitations) and operator-made accounts (POST /v1/users):
// who can become a member, with which code, and what a code in the wrong hands can do.
import { createHash } from 'node:crypto';
import { MAX_OPEN_INVITATIONS_PER_WORKSPACE } from '@osmosis/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SeededMember, startTestApi, type TestApi } from './testing.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ config: { authFailureLimit: 10_000 } });
});
afterAll(async () => {
  await api?.close();
});

async function invite(admin: SeededMember, email: string, body: Record<string, unknown> = {}) {
  const res = await api.request('POST', '/v1/members', { token: admin.token, body: { email, ...body } });
  expect(res.status, res.text).toBe(201);
  return res.body.data as { invitation: { id: string; email: string; role: string }; code: string };
}

function accept(token: string, code: string) {
  return api.request('POST', '/v1/invitations/accept', { token, body: { code } });
}

async function isMember(userId: string, workspaceId: string): Promise<boolean> {
  return (await api.db.membership.count({ where: { userId, workspaceId } })) === 1;
}

describe('accepting an invitation', () => {
  it('makes the invitee a member with the role, once; the admin never holds a credential of theirs', async () => {
    const admin = await api.seedWorkspace();
    const invitee = await api.seedWorkspace();
    const { invitation, code } = await invite(admin, invitee.email.toUpperCase(), { role: 'admin' });
    expect(invitation).toMatchObject({ email: invitee.email, role: 'admin' });
    expect(code).toMatch(/^osminv_[A-Za-z0-9_-]{43}$/);
    // only the code's hash is stored
    const row = await api.db.invitation.findUniqueOrThrow({ where: { id: invitation.id } });
    expect(row.codeHash).toBe(createHash('sha256').update(code).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(code);

    const accepted = await accept(invitee.token, code);
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body.data).toMatchObject({
      workspace: { id: admin.workspaceId, name: admin.workspaceName },
      role: 'admin',
    });
    expect(await isMember(invitee.userId, admin.workspaceId)).toBe(true);
    // the invitee makes their own token for the workspace with a token of theirs
    const mine = await api.request('POST', '/v1/tokens', {
      token: invitee.token,
      body: { name: 'joined', workspace: admin.workspaceName },
    });
    expect(mine.status, mine.text).toBe(201);
    const me = await api.request('GET', '/v1/me', { token: mine.body.data.token });
    expect(me.body.data).toMatchObject({ role: 'admin', workspace: { id: admin.workspaceId } });

    // single use, and gone from the open list
    const again = await accept(invitee.token, code);
    expect(again.status).toBe(404);
    const open = await api.request('GET', '/v1/invitations', { token: admin.token });
    expect(open.body.items.map((i: { id: string }) => i.id)).not.toContain(invitation.id);
  });

  it('a code in the wrong hands does nothing and tells nothing; the invitee can still use it', async () => {
    const admin = await api.seedWorkspace();
    const invitee = await api.seedWorkspace();
    const thief = await api.seedWorkspace();
    const { code } = await invite(admin, invitee.email);
    const stolen = await accept(thief.token, code);
    const bogus = await accept(thief.token, `osminv_${'A'.repeat(43)}`);
    expect(stolen.status).toBe(404);
    expect(stolen.body.error.code).toBe('NOT_FOUND');
    // the same answer as a code that never existed: nothing about whom it was for
    expect(stolen.body).toEqual(bogus.body);
    expect(stolen.text).not.toContain(invitee.email);
    expect(await isMember(thief.userId, admin.workspaceId)).toBe(false);
    expect((await accept(invitee.token, code)).status).toBe(200);
  });

  it('refuses an expired, a cancelled and a superseded code with the same 404', async () => {
    const admin = await api.seedWorkspace();
    const invitee = await api.seedWorkspace();
    const expired = await invite(admin, invitee.email);
    await api.db.invitation.update({
      where: { id: expired.invitation.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const first = await invite(admin, invitee.email);
    const second = await invite(admin, invitee.email); // supersedes the first
    const cancelled = await api.request('DELETE', `/v1/invitations/${second.invitation.id}`, {
      token: admin.token,
    });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data.id).toBe(second.invitation.id);
    const answers = await Promise.all([expired, first, second].map((i) => accept(invitee.token, i.code)));
    expect(answers.map((a) => a.status)).toEqual([404, 404, 404]);
    expect(answers[0]!.body.error.message).toContain('expired');
    expect(await isMember(invitee.userId, admin.workspaceId)).toBe(false);
    // cancelling twice: nothing open to cancel
    const twice = await api.request('DELETE', `/v1/invitations/${second.invitation.id}`, {
      token: admin.token,
    });
    expect(twice.status).toBe(404);
  });

  it('one of two racing accepts of a code wins', async () => {
    const admin = await api.seedWorkspace();
    const invitee = await api.seedWorkspace();
    const { code } = await invite(admin, invitee.email);
    const answers = await Promise.all([accept(invitee.token, code), accept(invitee.token, code)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 404]);
    expect(await isMember(invitee.userId, admin.workspaceId)).toBe(true);
  });

  it('needs a token the invitee holds themselves: not a confined one, not a read-only one', async () => {
    const admin = await api.seedWorkspace();
    const elsewhere = await api.seedWorkspace();
    const lent = await api.addMember(elsewhere.workspaceId, 'member', undefined, { confined: true });
    const { code } = await invite(admin, lent.email);
    const byConfined = await accept(lent.token, code);
    expect(byConfined.status).toBe(403);
    expect(byConfined.body.error.message).toContain('use a token you made yourself');

    const owner = await api.seedWorkspace();
    const readOnly = await api.request('POST', '/v1/tokens', {
      token: owner.token,
      body: { name: 'ro', role: 'viewer' },
    });
    const code2 = (await invite(admin, owner.email)).code;
    const byReadOnly = await accept(readOnly.body.data.token, code2);
    expect(byReadOnly.status).toBe(403);
    expect(byReadOnly.body.error.message).toContain('read only');
    expect(await isMember(lent.userId, admin.workspaceId)).toBe(false);
    expect(await isMember(owner.userId, admin.workspaceId)).toBe(false);

    // a viewer member with a token of their own may: it is their account, not the workspace
    const viewer = await api.addMember(elsewhere.workspaceId, 'viewer');
    const code3 = (await invite(admin, viewer.email)).code;
    expect((await accept(viewer.token, code3)).status).toBe(200);
  });

  it('lets no one in on the word of an admin who was removed or demoted since', async () => {
    const owner = await api.seedWorkspace();
    const rogue = await api.addMember(owner.workspaceId, 'admin');
    const accomplice = await api.seedWorkspace();
    const { code } = await invite(rogue, accomplice.email, { role: 'admin' });
    const removed = await api.request('DELETE', `/v1/members/${rogue.userId}`, { token: owner.token });
    expect(removed.status).toBe(200);
    expect((await accept(accomplice.token, code)).status).toBe(404);
    expect(await isMember(accomplice.userId, owner.workspaceId)).toBe(false);

    // demoted to member: their invitations are cancelled with the role
    const admin2 = await api.addMember(owner.workspaceId, 'admin');
    const second = await invite(admin2, accomplice.email);
    const demoted = await api.request('PATCH', `/v1/members/${admin2.userId}`, {
      token: owner.token,
      body: { role: 'member' },
    });
    expect(demoted.status).toBe(200);
    const open = await api.request('GET', '/v1/invitations', { token: owner.token });
    expect(open.body.items.map((i: { id: string }) => i.id)).not.toContain(second.invitation.id);
    expect((await accept(accomplice.token, second.code)).status).toBe(404);

    // and when the role changed behind the routes' back, accepting checks the inviter again:
    // an owner's invitation to the owner role needs them to be an owner still
    const owner2 = await api.addMember(owner.workspaceId, 'owner');
    const third = await invite(owner2, accomplice.email, { role: 'owner' });
    await api.db.membership.update({
      where: { workspaceId_userId: { workspaceId: owner.workspaceId, userId: owner2.userId } },
      data: { role: 'admin' },
    });
    expect((await accept(accomplice.token, third.code)).status).toBe(404);
    expect(await isMember(accomplice.userId, owner.workspaceId)).toBe(false);
  });

  it('refuses to invite a member (409) and lets the admins only list and cancel', async () => {
    const admin = await api.seedWorkspace();
    const member = await api.addMember(admin.workspaceId, 'member');
    const dup = await api.request('POST', '/v1/members', {
      token: admin.token,
      body: { email: member.email },
    });
    expect(dup.status).toBe(409);
    const { invitation } = await invite(admin, `x-${crypto.randomUUID()}@example.test`);
    expect((await api.request('GET', '/v1/invitations', { token: member.token })).status).toBe(403);
    const cancel = await api.request('DELETE', `/v1/invitations/${invitation.id}`, { token: member.token });
    expect(cancel.status).toBe(403);
    // another workspace's admin sees none of it
    const other = await api.seedWorkspace();
    const list = await api.request('GET', '/v1/invitations', { token: other.token });
    expect(list.body.items).toEqual([]);
    const foreign = await api.request('DELETE', `/v1/invitations/${invitation.id}`, { token: other.token });
    expect(foreign.status).toBe(404);
    expect((await api.request('GET', '/v1/invitations', { token: admin.token })).body.total_count).toBe(1);
  });

  it('refuses old clients’ fields and out-of-range expiries naming the field', async () => {
    const admin = await api.seedWorkspace();
    for (const body of [
      { email: 'a@example.test', display_name: 'A' },
      { email: 'a@example.test', expires_in_days: 0 },
      { email: 'a@example.test', expires_in_days: 31 },
    ]) {
      const res = await api.request('POST', '/v1/members', { token: admin.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
  });
});

describe('what inviting may store', () => {
  it('grows nothing when inviting in a loop, and caps the open invitations of a workspace', async () => {
    const admin = await api.seedWorkspace();
    const email = `loop-${crypto.randomUUID()}@example.test`;
    for (let i = 0; i < 5; i++) await invite(admin, email);
    const cancelled = await invite(admin, `c-${crypto.randomUUID()}@example.test`);
    await api.request('DELETE', `/v1/invitations/${cancelled.invitation.id}`, { token: admin.token });
    await invite(admin, `d-${crypto.randomUUID()}@example.test`);
    // the newest of the loop and the last one: superseded and cancelled rows are gone
    expect(await api.db.invitation.count({ where: { workspaceId: admin.workspaceId } })).toBe(2);

    await api.db.invitation.createMany({
      data: Array.from({ length: MAX_OPEN_INVITATIONS_PER_WORKSPACE - 2 }, (_, i) => ({
        workspaceId: admin.workspaceId,
        email: `filler-${i}@example.test`,
        role: 'member' as const,
        codeHash: `filler-${admin.workspaceId}-${i}`,
        expiresAt: new Date(Date.now() + 60_000),
      })),
    });
    const over = await api.request('POST', '/v1/members', {
      token: admin.token,
      body: { email: `over-${crypto.randomUUID()}@example.test` },
    });
    expect(over.status).toBe(409);
    expect(over.body.error.details).toEqual({ limit: MAX_OPEN_INVITATIONS_PER_WORKSPACE });
    expect(over.body.error.message).toContain('cancel some first');
  });
});

describe('POST /v1/users (operators make accounts)', () => {
  it('makes an account with a workspace of its own; the new user then accepts invitations', async () => {
    const operator = await api.seedWorkspace({ operator: true });
    const email = `Grace.Hopper+${crypto.randomUUID().slice(0, 8)}@Example.test`;
    const res = await api.request('POST', '/v1/users', {
      token: operator.token,
      body: { email, display_name: 'Grace' },
    });
    expect(res.status, res.text).toBe(201);
    const { user, workspace, token } = res.body.data;
    expect(user).toMatchObject({ email: email.toLowerCase(), display_name: 'Grace' });
    expect(workspace.name).toMatch(/^grace\.hopper-/);
    const me = await api.request('GET', '/v1/me', { token: token.token });
    expect(me.body.data).toMatchObject({ role: 'owner', workspace: { id: workspace.id } });
    expect(token.confined).toBe(false);

    const admin = await api.seedWorkspace();
    const { code } = await invite(admin, email);
    expect((await accept(token.token, code)).status).toBe(200);

    const again = await api.request('POST', '/v1/users', { token: operator.token, body: { email } });
    expect(again.status).toBe(409);
  });

  it('is for operators only: a workspace owner is refused and nothing is made', async () => {
    const owner = await api.seedWorkspace();
    const email = `n-${crypto.randomUUID()}@example.test`;
    const res = await api.request('POST', '/v1/users', { token: owner.token, body: { email } });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toContain("only the deployment's operators make user accounts");
    // the refusal says what a workspace admin does instead, not the deployment views' wording
    expect(res.body.error.message).toContain('osmosis member add EMAIL');
    expect(res.body.error.message).not.toContain('this view');
    expect(await api.db.user.count({ where: { email } })).toBe(0);
  });

  it('picks another workspace name when the e-mail’s is taken, and refuses a named one that is', async () => {
    const operator = await api.seedWorkspace({ operator: true });
    const taken = await api.seedWorkspace();
    const email = `${taken.workspaceName}@example.test`;
    const res = await api.request('POST', '/v1/users', { token: operator.token, body: { email } });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.workspace.name).toMatch(new RegExp(`^${taken.workspaceName}-[0-9a-f]{6}$`));
    const named = await api.request('POST', '/v1/users', {
      token: operator.token,
      body: { email: `m-${crypto.randomUUID()}@example.test`, workspace: taken.workspaceName },
    });
    expect(named.status).toBe(409);
    expect(named.body.error.message).toContain(taken.workspaceName);
  });

  it('refuses hostile input with a 4xx and makes nothing: no token, a read-only token, bad bodies, racing creates', async () => {
    const operator = await api.seedWorkspace({ operator: true });
    const email = `h-${crypto.randomUUID()}@example.test`;
    const made = () => api.db.user.count({ where: { email } });

    expect((await api.request('POST', '/v1/users', { body: { email } })).status).toBe(401);
    const readOnly = await api.request('POST', '/v1/tokens', {
      token: operator.token,
      body: { name: 'ro', role: 'viewer' },
    });
    const byReadOnly = await api.request('POST', '/v1/users', {
      token: readOnly.body.data.token,
      body: { email },
    });
    expect(byReadOnly.status).toBe(403);
    expect(byReadOnly.body.error.message).toContain('read only');

    const bodies: unknown[] = [
      { email, is_operator: true }, // no way to mint an operator through the API
      { email: 'not-an-email' },
      { email: `a\r\nX-Injected: 1@example.test` },
      { email: `${'a'.repeat(250)}@example.test` },
      { email, workspace: '../../etc' },
      { email, workspace: 'a'.repeat(500) },
      { email, display_name: 'x'.repeat(10_000) },
      { email, display_name: '   ' },
      [email],
      'plain text',
    ];
    for (const body of bodies) {
      const res = await api.request('POST', '/v1/users', { token: operator.token, body });
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
    }
    expect(await made()).toBe(0);

    // ten racing creates of one e-mail: one account, the rest a 409, never a 500
    const raced = await Promise.all(
      Array.from({ length: 10 }, () =>
        api.request('POST', '/v1/users', { token: operator.token, body: { email } }),
      ),
    );
    expect(raced.map((r) => r.status).sort()).toEqual([201, ...Array(9).fill(409)]);
    expect(await made()).toBe(1);
    const user = await api.db.user.findUniqueOrThrow({ where: { email } });
    expect(user.isOperator).toBe(false);
  });
});
