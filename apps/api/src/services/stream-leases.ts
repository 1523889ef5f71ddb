// The run streams one user holds open across every API process of the deployment, in Redis. Each
// open stream is a lease in a sorted set per user, scored by when it lapses; the stream renews it
// while it lives and removes it when it closes. A process that dies leaves leases that lapse on
// their own, so a crashed API never locks a user out for longer than LEASE_MS.
//
// Redis's clock decides (TIME inside the script), not each API host's.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

/** A lease lapses this long after its last renewal; streams renew every LEASE_MS / 3. */
export const STREAM_LEASE_MS = 30_000;
/** How long opening a stream waits for Redis before it goes on with the process's own bound. */
const ACQUIRE_WAIT_MS = 2_000;

// KEYS[1] the user's set; ARGV: max, lease ms, lease id. Returns the count held before taking
// one, negated when the user is at the limit (then nothing is taken).
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local held = redis.call('ZCARD', KEYS[1])
if held >= tonumber(ARGV[1]) then return -held - 1 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
return held
`;

// KEYS[1] the user's set; ARGV: lease ms, lease id. Renews the lease only if it is still held.
const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if redis.call('ZSCORE', KEYS[1], ARGV[2]) then
  redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[1]), ARGV[2])
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]))
  return 1
end
return 0
`;

export type StreamLeaseAnswer = { ok: true; id: string; held: number } | { ok: false; held: number };

export class StreamLeases {
  private readonly redis: Redis;
  private readonly prefix: string;
  private readonly max: number;
  private readonly leaseMs: number;

  constructor(redis: Redis, prefix: string, max: number, leaseMs: number = STREAM_LEASE_MS) {
    this.redis = redis;
    this.prefix = prefix;
    this.max = max;
    this.leaseMs = leaseMs;
  }

  private key(userId: string): string {
    return `${this.prefix}:run-streams:${userId}`;
  }

  /**
   * Takes a place for one more stream of the user, or says how many they hold. Throws when Redis
   * has not answered within `waitMs`: the API's connection queues commands while Redis is away
   * (BullMQ needs that), and a stream must not wait for it to come back.
   */
  async acquire(userId: string, waitMs = ACQUIRE_WAIT_MS): Promise<StreamLeaseAnswer> {
    const id = randomUUID();
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`Redis did not answer within ${waitMs} ms`)), waitMs);
    });
    const asked = this.redis.eval(ACQUIRE, 1, this.key(userId), this.max, this.leaseMs, id);
    try {
      const answer = Number(await Promise.race([asked, gaveUp]));
      return answer < 0 ? { ok: false, held: -answer - 1 } : { ok: true, id, held: answer };
    } catch (err) {
      // should the queued command run later, its place must not stay taken
      asked.then(() => this.release(userId, id)).catch(() => {});
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Keeps a lease alive; false when it had lapsed (the place may be someone else's now). */
  async renew(userId: string, id: string): Promise<boolean> {
    return Number(await this.redis.eval(RENEW, 1, this.key(userId), this.leaseMs, id)) === 1;
  }

  async release(userId: string, id: string): Promise<void> {
    await this.redis.zrem(this.key(userId), id);
  }
}
