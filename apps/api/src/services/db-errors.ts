// Database errors a service handles itself rather than leaving to the error handler's mapping.

/** Prisma's unique-constraint violation (P2002): a concurrent request wrote the same key first. */
export function isUniqueViolation(error: unknown): boolean {
  return !!error && typeof error === 'object' && (error as { code?: string }).code === 'P2002';
}
