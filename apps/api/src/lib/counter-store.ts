import type { Redis } from 'ioredis';

/** A fixed-window counter: how many hits a key has had since its window opened. */
export interface CounterStore {
  hit(key: string, windowSeconds: number): Promise<{ count: number; resetInSeconds: number }>;
  peek(key: string): Promise<{ count: number; resetInSeconds: number }>;
  reset(key: string): Promise<void>;
}

// INCR and, on the first hit of a window, PEXPIRE; one round trip and atomic.
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {count, redis.call('PTTL', KEYS[1])}
`;

export class RedisCounterStore implements CounterStore {
  constructor(private readonly redis: Redis) {}

  async hit(key: string, windowSeconds: number) {
    const [count, ttlMs] = (await this.redis.eval(HIT_SCRIPT, 1, `counter:${key}`, windowSeconds * 1000)) as [
      number,
      number,
    ];
    return { count, resetInSeconds: Math.max(1, Math.ceil(ttlMs / 1000)) };
  }

  async peek(key: string) {
    const [value, ttlMs] = await Promise.all([this.redis.get(`counter:${key}`), this.redis.pttl(`counter:${key}`)]);
    return { count: Number(value ?? 0), resetInSeconds: Math.max(0, Math.ceil(ttlMs / 1000)) };
  }

  async reset(key: string) {
    await this.redis.del(`counter:${key}`);
  }
}

/** In-process counters for a single api instance run without Redis. */
export class MemoryCounterStore implements CounterStore {
  private readonly windows = new Map<string, { count: number; resetsAt: number }>();

  async hit(key: string, windowSeconds: number) {
    const now = Date.now();
    const current = this.windows.get(key);
    const window = current && current.resetsAt > now ? current : { count: 0, resetsAt: now + windowSeconds * 1000 };
    window.count += 1;
    this.windows.set(key, window);
    return { count: window.count, resetInSeconds: Math.ceil((window.resetsAt - now) / 1000) };
  }

  async peek(key: string) {
    const now = Date.now();
    const current = this.windows.get(key);
    if (!current || current.resetsAt <= now) return { count: 0, resetInSeconds: 0 };
    return { count: current.count, resetInSeconds: Math.ceil((current.resetsAt - now) / 1000) };
  }

  async reset(key: string) {
    this.windows.delete(key);
  }
}
