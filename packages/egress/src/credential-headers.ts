// Headers that carry a credential. Under redirects: 'checked' a hop may leave the first URL's
// origin (a public download moved elsewhere); the fetch standard drops Authorization on such a
// hop, and guardedFetch follows redirects by hand, so it must drop them itself — otherwise a key
// or cookie a caller set would be replayed to whatever host the redirect names.
import { Headers, type RequestInit } from 'undici';

/** Lower-case names of the headers dropped on a cross-origin hop. */
export const CREDENTIAL_HEADERS: readonly string[] = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'x-api-key', // Anthropic and most proxies
  'api-key', // Azure OpenAI
  'x-goog-api-key', // Gemini
];

/** `init` without any credential header (the original object is left as it was). */
export function withoutCredentials(init: RequestInit): RequestInit {
  if (!init.headers) return init;
  const headers = new Headers(init.headers);
  for (const name of CREDENTIAL_HEADERS) headers.delete(name);
  return { ...init, headers };
}
