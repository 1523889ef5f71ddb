// Which redirect hops guardedFetch follows. Three rules beyond the policy's address check:
// - never to a URL carrying user:pass@ (fetch's own refusal quotes the whole URL, password too);
// - never from https to http: the request (a model endpoint's Authorization or x-api-key header,
//   a registry document's body) would go over the wire in plaintext, whoever answers;
// - under 'same-host' (a request carrying a key), the hop must stay on the first URL's origin:
//   same host, same port, same scheme, except http upgraded to https on the default ports
//   (http://h/ to https://h/). Comparing host and port alone let https://h/ (port '') send the
//   key on to http://h/ (port '' too).
import { hostOf } from './policy.ts';

const NOT_FOLLOWED =
  'redirects to another host, port or scheme are not followed (a key is only sent where it was first sent)';

/** Why the hop from `current` to `next` is not followed, or null (`first`: the request's own URL). */
export function redirectRefusal(first: URL, current: URL, next: URL, sameHost: boolean): string | null {
  if (next.username || next.password) {
    return `${hostOf(current)} redirected to a URL for ${hostOf(next)} that carries a user name or password, which is not followed`;
  }
  if (current.protocol === 'https:' && next.protocol !== 'https:') {
    return `${hostOf(current)} redirected from https to ${next.protocol.replace(/:$/, '')} (${hostOf(next)}); a redirect that drops TLS is not followed`;
  }
  // URL writes a scheme's default port as '', so the origins compare ports as they connect
  if (!sameHost || next.origin === first.origin) return null;
  if (hostOf(next) !== hostOf(first)) {
    return `${hostOf(current)} redirected to another host (${hostOf(next)}); ${NOT_FOLLOWED}`;
  }
  const upgrade = first.protocol === 'http:' && next.protocol === 'https:' && !first.port && !next.port;
  if (upgrade) return null;
  return `${hostOf(current)} redirected to another port or scheme (${next.protocol}//${next.host}); ${NOT_FOLLOWED}`;
}
