// /v1/workspace/git-links and /v1/git-links/resolve against the real API and Postgres: every
// member reads the links, admins and owners change them, identities are checked, and the
// resolution by the X-Osmosis-Git header only ever names workspaces the caller's token may
// reach — never another tenant's link.
import { GitLinkResolveResponse, ListGitLinksResponse, SetGitLinkResponse } from '@osmosis/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SeededMember, startTestApi, type TestApi } from '../testing.ts';

let api: TestApi;
let owner: SeededMember;
let admin: SeededMember;
let member: SeededMember;
let viewer: SeededMember;
let other: SeededMember;

const resolve = (who: SeededMember, identity: string) =>
  api.request('GET', '/v1/git-links/resolve', { token: who.token, headers: { 'x-osmosis-git': identity } });
const link = (who: SeededMember, body: unknown) =>
  api.request('PUT', '/v1/workspace/git-links', { token: who.token, body });

beforeAll(async () => {
  api = await startTestApi();
  owner = await api.seedWorkspace({ name: 'acme' });
  admin = await api.addMember(owner.workspaceId, 'admin');
  member = await api.addMember(owner.workspaceId, 'member');
  viewer = await api.addMember(owner.workspaceId, 'viewer');
  other = await api.seedWorkspace({ name: 'globex' });
});
afterAll(async () => {
  await api?.close();
});

describe('git links', () => {
  it('admins and owners link a repository, idempotently; the remote URL is kept without credentials', async () => {
    const created = await link(admin, {
      identity: 'acme/bench',
      remote_url: 'https://user:pat@github.com/acme/bench.git?x=1',
    });
    expect(created.status, created.text).toBe(201);
    expect(SetGitLinkResponse.parse(created.body).data).toMatchObject({
      identity: 'acme/bench',
      remote_url: 'https://github.com/acme/bench.git',
      added_by: { id: admin.userId },
      created: true,
    });
    const again = await link(owner, { identity: 'acme/bench' });
    expect(again.status).toBe(200);
    expect(SetGitLinkResponse.parse(again.body).data.created).toBe(false);
    for (const who of [owner, member, viewer]) {
      const page = await api.request('GET', '/v1/workspace/git-links', { token: who.token });
      expect(page.status).toBe(200);
      expect(ListGitLinksResponse.parse(page.body).items.map((l) => l.identity)).toEqual(['acme/bench']);
    }
  });

  it('members and viewers cannot change links; a bad identity is a 400 naming the field', async () => {
    expect((await link(member, { identity: 'acme/x' })).status).toBe(403);
    expect((await link(viewer, { identity: 'acme/x' })).status).toBe(403);
    for (const identity of ['Acme/Bench', 'acme', '../etc', 'acme/../x', 'acme/b c', '-x/y', '']) {
      const bad = await link(owner, { identity });
      expect(bad.status, identity).toBe(400);
      expect(bad.body).toMatchObject({ error: { code: 'VALIDATION_ERROR' } });
      expect(JSON.stringify(bad.body)).toContain('identity');
    }
    expect((await link(owner, { identity: 'acme/x', extra: 1 })).status).toBe(400);
  });

  it('refuses a remote URL with control characters (NUL was a 500 from Postgres; ESC reaches terminals) with a 400 naming it', async () => {
    for (const remote_url of [
      'git@github.com\u0000:acme/bench.git',
      'git@github.com:acme/\u001b[2Jbench',
      'https://github.com/acme/\u009bbench',
    ]) {
      const bad = await link(owner, { identity: 'acme/ctl', remote_url });
      expect(bad.status, JSON.stringify(remote_url)).toBe(400);
      expect(bad.body).toMatchObject({ error: { code: 'VALIDATION_ERROR' } });
      expect(JSON.stringify(bad.body)).toContain('remote_url');
    }
    expect(await api.db.workspaceGitLink.count({ where: { identity: 'acme/ctl' } })).toBe(0);
    const scp = await link(owner, { identity: 'acme/ctl', remote_url: 'git@github.com:acme/ctl.git' });
    expect(scp.status, scp.text).toBe(201);
    expect(SetGitLinkResponse.parse(scp.body).data.remote_url).toBe('github.com:acme/ctl.git');
    await link(owner, { identity: 'acme/ctl' });
    await api.request('DELETE', '/v1/workspace/git-links?identity=acme%2Fctl', { token: owner.token });
  });

  it('resolves the header to the caller’s linked workspaces only', async () => {
    // another tenant links the same repository: nobody can claim it away, and neither sees the other
    expect((await link(other, { identity: 'acme/bench' })).status).toBe(201);
    const mine = GitLinkResolveResponse.parse((await resolve(member, 'acme/bench')).body).data;
    expect(mine).toEqual({ identity: 'acme/bench', workspaces: [{ id: owner.workspaceId, name: 'acme' }] });
    const theirs = GitLinkResolveResponse.parse((await resolve(other, 'acme/bench')).body).data;
    expect(theirs.workspaces).toEqual([{ id: other.workspaceId, name: 'globex' }]);
    // an unlinked identity: no workspace
    expect(GitLinkResolveResponse.parse((await resolve(member, 'acme/none')).body).data.workspaces).toEqual(
      [],
    );
    // a user in both workspaces sees both (the CLI then asks for --workspace)
    const invited = await api.request('POST', '/v1/members', {
      token: other.token,
      body: { email: member.email },
    });
    expect(invited.status, invited.text).toBe(201);
    // not before they accept
    expect(
      GitLinkResolveResponse.parse((await resolve(member, 'acme/bench')).body).data.workspaces.map(
        (w) => w.name,
      ),
    ).toEqual(['acme']);
    const both = await api.request('POST', '/v1/invitations/accept', {
      token: member.token,
      body: { code: invited.body.data.code },
    });
    expect(both.status, both.text).toBe(200);
    const names = GitLinkResolveResponse.parse(
      (await resolve(member, 'acme/bench')).body,
    ).data.workspaces.map((w) => w.name);
    expect(names).toEqual(['acme', 'globex']);
  });

  it('a confined token reaches its own workspace only', async () => {
    // a user of their own workspace, a member of globex through a confined token (as older
    // deployments hold), who then joins acme by invitation
    const home = await api.seedWorkspace({ email: `confined-git-${crypto.randomUUID()}@example.test` });
    const token = (await api.addMember(other.workspaceId, 'member', home.email, { confined: true })).token;
    const invited = await api.request('POST', '/v1/members', {
      token: owner.token,
      body: { email: home.email },
    });
    expect(invited.status, invited.text).toBe(201);
    const accepted = await api.request('POST', '/v1/invitations/accept', {
      token: home.token,
      body: { code: invited.body.data.code },
    });
    expect(accepted.status, accepted.text).toBe(200);
    // the user's own token reaches both linked workspaces
    const own = await api.request('GET', '/v1/git-links/resolve', {
      token: home.token,
      headers: { 'x-osmosis-git': 'acme/bench' },
    });
    expect(
      GitLinkResolveResponse.parse(own.body)
        .data.workspaces.map((w) => w.name)
        .sort(),
    ).toEqual(['acme', 'globex']);
    const res = await api.request('GET', '/v1/git-links/resolve', {
      token,
      headers: { 'x-osmosis-git': 'acme/bench' },
    });
    expect(GitLinkResolveResponse.parse(res.body).data.workspaces).toEqual([
      { id: other.workspaceId, name: 'globex' },
    ]);
  });

  it('refuses a missing or malformed header with a 400 naming it', async () => {
    for (const headers of [
      {},
      { 'x-osmosis-git': 'Not An Identity' },
      { 'x-osmosis-git': '../../x' },
    ] as Record<string, string>[]) {
      const res = await api.request('GET', '/v1/git-links/resolve', { token: member.token, headers });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain('x-osmosis-git');
    }
  });

  it('unlinks within the caller’s workspace only', async () => {
    const bad = await api.request('DELETE', '/v1/workspace/git-links?identity=acme%2Fbench', {
      token: member.token,
    });
    expect(bad.status).toBe(403);
    const gone = await api.request('DELETE', '/v1/workspace/git-links?identity=acme%2Fbench', {
      token: owner.token,
    });
    expect(gone.status, gone.text).toBe(200);
    expect(gone.body).toEqual({ data: { identity: 'acme/bench', deleted: true } });
    const again = await api.request('DELETE', '/v1/workspace/git-links?identity=acme%2Fbench', {
      token: owner.token,
    });
    expect(again.status).toBe(404);
    // globex's link of the same identity stays
    expect(await api.db.workspaceGitLink.count({ where: { workspaceId: other.workspaceId } })).toBe(1);
  });
});
