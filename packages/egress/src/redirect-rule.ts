// Which redirect hops guardedFetch follows. Two rules beyond the policy's address check:
// - never from https to http: the request (a model endpoint's Authorization or x-api-key header,
//   a registry document's body) would go over the wire in plaintext, whoever answers;
// - under 'same-host' (a request carrying a key), the hop must stay on the first URL's origin:
//   same host, same port, same scheme, except http upgraded to https on the default ports
//   (http://h/ to https://h/). Comparing host and port alone let https://h/ (port '') send the
//   key on to http://h/ (port '' too).
import { hostOf } from './policy.ts';

const NOT_FOLLOWED =
  'redirects to another host, port or scheme are not followed (a key is only sent where it was first sent)';

/** The port a URL connects to (its explicit port or its scheme's default). */
function effectivePort(url: URL): string {
  if (url.port) return url.port;
  return url.protocol === 'https:' ? '443' : url.protocol === 'http:' ? '80' : '';
}

/** Why the hop from `current` to `next` is not followed, or null (`first`: the request's own URL). */
export function redirectRefusal(first: URL, current: URL, next: URL, sameHost: boolean): string | null {
  if (current.protocol === 'https:' && next.protocol !== 'https:') {
    return `${hostOf(current)} redirected from https to ${next.protocol.replace(/:$/, '')} (${hostOf(next)}); a redirect that drops TLS is not followed`;
  }
  if (!sameHost) return null;
  if (hostOf(next) !== hostOf(first)) {
    return `${hostOf(current)} redirected to another host (${hostOf(next)}); ${NOT_FOLLOWED}`;
  }
  const samePort = effectivePort(next) === effectivePort(first);
  const sameScheme = next.protocol === first.protocol;
  const upgrade = first.protocol === 'http:' && next.protocol === 'https:' && !first.port && !next.port;
  if ((sameScheme && samePort) || upgrade) return null;
  return `${hostOf(current)} redirected to another port or scheme (${next.protocol}//${next.host}); ${NOT_FOLLOWED}`;
}
