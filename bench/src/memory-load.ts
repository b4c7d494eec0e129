/**
 * The steady mixed load of the memory harness (issue 40): reads, entry writes with Idempotency-Key, board
 * posts and comments, logins (argon2) and image uploads (sharp), each kind at a fixed rate, so a slower or
 * faster machine does the same work per minute. A kind whose requests are all still in flight skips a beat
 * (counted), rather than piling up.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import sharp from 'sharp';

export interface Member {
  email: string;
  password: string;
  token?: string;
  walletId?: number;
  /** The last entry written with its Idempotency-Key: a retry sends both again. */
  lastWrite?: { key: string; body: unknown };
}

interface Kind {
  name: string;
  /** Requests per second. */
  rate: number;
  run: (load: MixedLoad) => Promise<number>;
}

export interface KindCounts {
  sent: number;
  ok: number;
  failed: number;
  skipped: number;
  statuses: Record<string, number>;
  latencies: number[];
}

const MAX_IN_FLIGHT_PER_KIND = 8;

function pick<T>(items: T[]): T {
  return items[Math.floor(Math.random() * items.length)]!;
}

/** Photo-like JPEGs (smoothed noise, so they compress like photos), made once per run. */
export async function makeImages(count: number, width: number, height: number, quality: number): Promise<Buffer[]> {
  const images: Buffer[] = [];
  for (let index = 0; index < count; index += 1) {
    const raw = randomBytes(width * height * 3);
    images.push(
      await sharp(raw, { raw: { width, height, channels: 3 } })
        .blur(1.2)
        .jpeg({ quality })
        .toBuffer(),
    );
  }
  return images;
}

/** Requests per second of each kind; `scale` multiplies them all. */
export const DEFAULT_RATES = {
  login: 1,
  profile: 8,
  entriesList: 6,
  boardList: 4,
  entryCreate: 3,
  postCreate: 0.5,
  commentCreate: 1,
  avatar: 0.2,
  boardImage: 0.2,
} as const;

export type KindName = keyof typeof DEFAULT_RATES;

export class MixedLoad {
  readonly counts = new Map<string, KindCounts>();
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly inFlight = new Map<string, number>();
  private readonly running = new Set<Promise<void>>();
  readonly postIds: number[] = [];

  constructor(
    readonly baseUrl: string,
    readonly members: Member[],
    readonly images: { avatars: Buffer[]; board: Buffer[] },
  ) {}

  async request(
    method: string,
    path: string,
    options: { member?: Member; json?: unknown; body?: FormData | string; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.member?.token) headers.authorization = `Bearer ${options.member.token}`;
    let body = options.body;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    }
    return fetch(`${this.baseUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
  }

  async login(member: Member): Promise<number> {
    const response = await this.request('POST', '/api/auth/login', {
      json: { email: member.email, password: member.password },
    });
    if (response.status === 200) member.token = ((await response.json()) as { token: string }).token;
    else await response.arrayBuffer();
    return response.status;
  }

  /** A wallet and the default categories for each member, and a few posts to comment on. */
  async prepare(): Promise<void> {
    for (const member of this.members) {
      const status = await this.login(member);
      if (status !== 200) throw new Error(`login of ${member.email} answered ${status}`);
      const wallet = await this.request('POST', '/api/account/wallets', {
        member,
        json: { name: 'Cash', type: 'CASH' },
      });
      if (wallet.status !== 201) throw new Error(`wallet: ${wallet.status} ${await wallet.text()}`);
      member.walletId = ((await wallet.json()) as { id: number }).id;
      const categories = await this.request('POST', '/api/account/categories/import', { member });
      await categories.arrayBuffer();
    }
    for (const member of this.members.slice(0, 4)) await simple(createPost(this, member));
  }

  start(rates: Record<KindName, number>): void {
    for (const kind of kinds) {
      const rate = rates[kind.name as KindName];
      if (!(rate > 0)) continue;
      const counts: KindCounts = { sent: 0, ok: 0, failed: 0, skipped: 0, statuses: {}, latencies: [] };
      this.counts.set(kind.name, counts);
      this.inFlight.set(kind.name, 0);
      const interval = 1000 / rate;
      // Spread the kinds' first beats over their interval, so they do not all fire together.
      const tick = () => {
        if ((this.inFlight.get(kind.name) ?? 0) >= MAX_IN_FLIGHT_PER_KIND) {
          counts.skipped += 1;
          return;
        }
        this.inFlight.set(kind.name, (this.inFlight.get(kind.name) ?? 0) + 1);
        counts.sent += 1;
        const started = performance.now();
        const done = kind
          .run(this)
          .then(
            (status) => {
              counts.statuses[status] = (counts.statuses[status] ?? 0) + 1;
              if (status < 400) counts.ok += 1;
              else counts.failed += 1;
            },
            (error: unknown) => {
              const name = (error as Error).name ?? 'error';
              counts.statuses[name] = (counts.statuses[name] ?? 0) + 1;
              counts.failed += 1;
            },
          )
          .finally(() => {
            counts.latencies.push(performance.now() - started);
            this.inFlight.set(kind.name, (this.inFlight.get(kind.name) ?? 1) - 1);
            this.running.delete(done);
          });
        this.running.add(done);
      };
      const first = setTimeout(() => {
        tick();
        this.timers.push(setInterval(tick, interval));
      }, Math.random() * interval);
      this.timers.push(first);
    }
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    await Promise.allSettled([...this.running]);
  }
}

async function simple(response: Promise<Response>): Promise<number> {
  const answer = await response;
  await answer.arrayBuffer();
  return answer.status;
}

function createPost(load: MixedLoad, member: Member): Promise<Response> {
  return load
    .request('POST', '/api/board/posts', {
      member,
      json: {
        category: pick(['community', 'saving', 'tips']),
        title: `Memory run ${randomUUID().slice(0, 8)}`,
        body: '이번 달 가계부 정리했어요. 식비가 생각보다 많이 나왔네요. '.repeat(1 + Math.floor(Math.random() * 6)),
      },
    })
    .then(async (response) => {
      if (response.status === 201) {
        const { id } = (await response.clone().json()) as { id: number };
        load.postIds.push(id);
        if (load.postIds.length > 200) load.postIds.shift();
      }
      return response;
    });
}

const today = () => new Date().toISOString().slice(0, 10);

const kinds: Kind[] = [
  { name: 'login', rate: 0, run: (load) => load.login(pick(load.members)) },
  {
    name: 'profile',
    rate: 0,
    run: (load) => simple(load.request('GET', '/api/auth/profile', { member: pick(load.members) })),
  },
  {
    name: 'entriesList',
    rate: 0,
    run: (load) => simple(load.request('GET', '/api/account/entries?size=20', { member: pick(load.members) })),
  },
  {
    name: 'boardList',
    rate: 0,
    run: (load) =>
      simple(
        load.request('GET', `/api/board/posts?category=${pick(['community', 'saving', 'tips'])}`, {
          member: pick(load.members),
        }),
      ),
  },
  {
    name: 'entryCreate',
    rate: 0,
    run: (load) => {
      const member = pick(load.members);
      // One in ten is a retry of the member's last write (same key and body: the first answer comes back).
      const write =
        member.lastWrite && Math.random() < 0.1
          ? member.lastWrite
          : {
              key: randomUUID(),
              body: {
                type: 'EXPENSE',
                amount: 1000 + Math.floor(Math.random() * 50_000),
                date: today(),
                memo: `스타벅스 ${randomUUID().slice(0, 6)}`,
                category: '카페',
                accountId: member.walletId,
              },
            };
      member.lastWrite = write;
      return simple(
        load.request('POST', '/api/account/entries', {
          member,
          headers: { 'idempotency-key': write.key },
          json: write.body,
        }),
      );
    },
  },
  { name: 'postCreate', rate: 0, run: (load) => simple(createPost(load, pick(load.members))) },
  {
    name: 'commentCreate',
    rate: 0,
    run: (load) => {
      const post = load.postIds.length > 0 ? pick(load.postIds.slice(-20)) : undefined;
      if (post === undefined) return Promise.resolve(0);
      return simple(
        load.request('POST', `/api/board/posts/${post}/comments`, {
          member: pick(load.members),
          json: { body: `좋은 정보 감사합니다 ${randomUUID().slice(0, 6)}` },
        }),
      );
    },
  },
  {
    name: 'avatar',
    rate: 0,
    run: (load) =>
      simple(
        load.request('PUT', '/api/auth/profile-image', {
          member: pick(load.members),
          json: { dataUrl: `data:image/jpeg;base64,${pick(load.images.avatars).toString('base64')}` },
        }),
      ),
  },
  {
    name: 'boardImage',
    rate: 0,
    run: (load) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(pick(load.images.board))], { type: 'image/jpeg' }), 'photo.jpg');
      return simple(load.request('POST', '/api/board/images', { member: pick(load.members), body: form }));
    },
  },
];
