// Building API clients from a command's Context.
import type { Context } from './context.ts';
import { type Credential, resolveCredential } from './credentials.ts';
import { CliError } from './errors.ts';
import { GIT_HEADER, pickLinkedWorkspace } from './git-link.ts';
import { ApiClient, DEFAULT_TIMEOUT_MS } from './http.ts';
import { note } from './output.ts';

const MAX_TIMER_MS = 2_147_483_647;

export function timeoutFrom(env: NodeJS.ProcessEnv): number {
  const raw = env.OSMOSIS_HTTP_TIMEOUT_MS;
  if (raw === undefined || raw === '') return DEFAULT_TIMEOUT_MS;
  const value = Number(raw);
  // a timer holds at most 2^31 - 1 ms (about 24.8 days): past it every request would fail
  if (!Number.isFinite(value) || value <= 0 || value > MAX_TIMER_MS) {
    throw new CliError(
      'USAGE_ERROR',
      `OSMOSIS_HTTP_TIMEOUT_MS must be a number of milliseconds from 1 to ${MAX_TIMER_MS}, not ${raw}`,
    );
  }
  return value;
}

function authHint(ctx: Context, credential: Credential): string {
  if (credential.source === 'env') {
    return `OSMOSIS_TOKEN was rejected by ${ctx.platformUrl} (revoked, expired or for another platform); fix it, or unset it to use the stored login`;
  }
  const ws = credential.login?.workspace_name;
  return `the stored login${ws ? ` for workspace ${ws}` : ''} was rejected by ${ctx.platformUrl} (revoked or expired?); log in again with \`osmosis auth login --token\``;
}

/** `X-Osmosis-Git: <identity>` inside a repository whose origin the CLI can name (as upstream). */
export function gitHeaders(ctx: Context): Record<string, string> {
  const identity = ctx.workspaceDirectory()?.git?.identity;
  return identity ? { [GIT_HEADER]: identity } : {};
}

/**
 * A client with the command's credential: OSMOSIS_TOKEN, the stored login of --workspace, the
 * stored login of the workspace the repository's origin is linked to, or the default stored
 * login. `credential` is final once the first request has been sent (`await client.ready()`).
 */
export function authenticatedClient(ctx: Context): ApiClient & { credential: Credential } {
  const first = resolveCredential(ctx);
  if (first.source === 'env' && ctx.workspace !== undefined) {
    note(
      ctx,
      `note: OSMOSIS_TOKEN is set, so its workspace is used; --workspace ${ctx.workspace} only selects among stored logins.`,
    );
  }
  const timeoutMs = timeoutFrom(ctx.io.env);
  const headers = gitHeaders(ctx);
  const holder: { credential: Credential } = { credential: first };
  const client = new ApiClient({
    baseUrl: ctx.platformUrl,
    token: first.token,
    timeoutMs,
    authHint: authHint(ctx, first),
    headers,
    ...(headers[GIT_HEADER] && first.selected_by === 'default'
      ? {
          prepare: async (self: ApiClient) => {
            const probe = new ApiClient({ baseUrl: ctx.platformUrl, token: first.token, timeoutMs, headers });
            const chosen = await pickLinkedWorkspace(ctx, first, probe);
            if (chosen !== first) {
              holder.credential = chosen;
              self.setCredential(chosen.token, authHint(ctx, chosen));
            }
          },
        }
      : {}),
  });
  return Object.defineProperty(client, 'credential', { get: () => holder.credential }) as ApiClient & {
    credential: Credential;
  };
}

/** A client with an explicit token (auth login verifies a candidate token) or none. */
export function clientWithToken(ctx: Context, token: string | undefined, authHintText?: string): ApiClient {
  return new ApiClient({
    baseUrl: ctx.platformUrl,
    ...(token === undefined ? {} : { token }),
    timeoutMs: timeoutFrom(ctx.io.env),
    ...(authHintText === undefined ? {} : { authHint: authHintText }),
    headers: gitHeaders(ctx),
  });
}
