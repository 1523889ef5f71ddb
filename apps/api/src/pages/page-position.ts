// Where a paged view starts, read strictly from the query: a bad or out-of-range position is a
// 400 naming it, never a silent jump back to the first page.
import { PageError } from './context.ts';

const WHOLE = /^\d{1,9}$/;

/** `?key=` as a page number: absent is 1; anything but a whole number ≥ 1 is refused. */
export function pageNumberOf(query: Record<string, string | undefined>, key: string): number {
  const raw = query[key];
  if (raw === undefined || raw === '') return 1;
  if (!WHOLE.test(raw) || Number(raw) < 1)
    throw new PageError(
      400,
      `invalid ${key}: "${raw.slice(0, 20)}" is not a page number; use a whole number from 1`,
    );
  return Number(raw);
}

/** `?key=` as a row offset: absent is 0; anything but a whole number ≥ 0 is refused. */
export function offsetOf(query: Record<string, string | undefined>, key: string): number {
  const raw = query[key];
  if (raw === undefined || raw === '') return 0;
  if (!WHOLE.test(raw))
    throw new PageError(
      400,
      `invalid ${key}: "${raw.slice(0, 20)}" is not an offset; use a whole number from 0`,
    );
  return Number(raw);
}

/** A page past the last one is refused, naming the last; an empty view has one (empty) page. */
export function assertPageExists(key: string, pageNo: number, pages: number): void {
  if (pageNo > Math.max(1, pages))
    throw new PageError(400, `invalid ${key}: page ${pageNo} is past the last page, ${Math.max(1, pages)}`);
}

/** An offset at or past the end of a non-empty list is refused, naming how many rows there are. */
export function assertOffsetInside(key: string, offset: number, total: number): void {
  if (offset > 0 && offset >= total)
    throw new PageError(
      400,
      `invalid ${key}: ${offset} is past the end of the list (${total} row(s)); use an offset below ${total}`,
    );
}
