/**
 * `pnpm soak [--minutes 30] [--out docs/soak.md]` (issue 40 part 4, decision FS4): two api replicas and two
 * billing workers on a private primary + synchronous standby and a private Redis, under a steady mixed load for
 * the given minutes, with a PostgreSQL failover, a Redis restart and a killed api replica at about 1/4, 1/2 and
 * 3/4 of it. Writes `docs/soak.md`: memory over time, latency outside the fault windows, non-successes inside and
 * outside them, and every acknowledged write checked on the new primary. Not part of CI.
 */
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { migrateDatabase } from '@nestegg/db/migrate';
import { type OwnRedisServer, startOwnRedisServer, startPrivateReplicatedPostgres } from '@nestegg/testing';
import postgres from 'postgres';
import { describeMachine } from '../machine.js';
import {
  Balancer,
  ENTRY_MEMO_PREFIX,
  KINDS,
  type Kind,
  login,
  type Member,
  newLedger,
  PASSWORD,
  RATES,
  writeComment,
  writeEntry,
  writePost,
} from './load.js';
import {
  apiSlot,
  cpuSeconds,
  heapUsedBytes,
  isReady,
  killAndRestart,
  residentBytes,
  type Slot,
  sleep,
  stopInstance,
  waitUntilReady,
  workerSlot,
} from './processes.js';
import {
  type FaultWindow,
  type MemorySample,
  renderReport,
  type SeriesOf,
  type SoakResult,
  writePage,
} from './report.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '30' },
    out: { type: 'string', default: new URL('../../../docs/soak.md', import.meta.url).pathname },
    members: { type: 'string', default: '20' },
  },
});
const minutes = Number(values.minutes);
const memberCount = Number(values.members);
if (!(minutes > 0) || !(memberCount > 0)) throw new Error('usage: pnpm soak [--minutes 30] [--out docs/soak.md]');
const out = values.out!;

const MARGIN_MS = 10_000;
const SAMPLE_EVERY_MS = 10_000;
const MAX_IN_FLIGHT = 80;
const TICK_MS = 50;
const log = (message: string) => console.info(`[soak ${new Date().toISOString().slice(11, 19)}] ${message}`);

const startedAt = Date.now();
log(`starting: ${minutes} min of load, report to ${out}`);
const [pair, redis] = await Promise.all([startPrivateReplicatedPostgres({ synchronous: true }), startOwnRedisServer()]);
const slots: Slot[] = [];
let cleanedUp = false;
async function cleanUp() {
  if (cleanedUp) return;
  cleanedUp = true;
  await Promise.all(slots.map((slot) => stopInstance(slot.current)));
  await Promise.all([redis.stop(), pair.stop()]);
}
process.once('SIGINT', () => {
  log('interrupted: stopping');
  void cleanUp().then(() => process.exit(130));
});

try {
  const result = await soak(redis);
  // The raw result beside the temporary files, so a report can be rendered again without a new run.
  const raw = join(os.tmpdir(), `nestegg-soak-${new Date(startedAt).toISOString().replace(/[:.]/g, '-')}.json`);
  await writeFile(
    raw,
    JSON.stringify(result, (key, value) => (key === 'child' ? undefined : value)),
  );
  log(`raw result in ${raw}`);
  await writePage(out, renderReport(result));
  log(`report written to ${out}`);
} finally {
  await cleanUp();
}

async function soak(redisServer: OwnRedisServer): Promise<SoakResult> {
  const admin = postgres(pair.primary.url, { max: 1, onnotice: () => {} });
  await admin`create database nestegg`;
  await admin.end();
  const databaseUrl = pair.url('nestegg', 'target_session_attrs=read-write');
  await migrateDatabase(databaseUrl);
  const machine = await describeMachine(pair.primary.url, redisServer.url);
  const shared = { DATABASE_URL: databaseUrl, REDIS_URL: redisServer.url, REDIS_KEY_PREFIX: 'soak:' };
  const apis = [await apiSlot('api-a', shared), await apiSlot('api-b', shared)];
  const workers = [await workerSlot('worker-1', shared), await workerSlot('worker-2', shared)];
  slots.push(...apis, ...workers);
  await Promise.all(slots.map((slot) => waitUntilReady(slot)));
  log('two apis and two workers ready');

  // Members: signed up and logged in through the balancer, each from an address of its own.
  const balancer = new Balancer(apis);
  const members: Member[] = [];
  for (let index = 0; index < memberCount; index += 1) {
    const email = `soak-${index}-${randomUUID().slice(0, 8)}@nestegg.test`;
    const address = `10.40.${Math.floor(index / 250)}.${(index % 250) + 1}`;
    const signup = await balancer.send('login', 'POST', '/api/auth/signup', {
      address,
      body: { email, password: PASSWORD, displayName: `soak ${index}` },
    });
    if (signup.answer.status !== 201) throw new Error(`signup answered ${signup.answer.status}`);
    const member: Member = { index, email, password: PASSWORD, address, token: '' };
    await login(balancer, member);
    if (!member.token) throw new Error('login after signup failed');
    members.push(member);
  }
  const ledger = newLedger();
  const posts: number[] = [];
  for (const member of members.slice(0, 5)) {
    const id = await writePost(balancer, member, ledger);
    if (id !== undefined) posts.push(id);
  }
  balancer.answers.length = 0;
  log(`${members.length} members, ${posts.length} posts seeded`);

  // Samples: each live instance's memory and CPU, the load average.
  const seriesByPid = new Map<number, SeriesOf>();
  const loadAverages: SoakResult['loadAverages'] = [];
  const sampleOnce = async () => {
    const [one, five, fifteen] = os.loadavg() as [number, number, number];
    loadAverages.push({ at: Date.now(), one, five, fifteen });
    await Promise.all(
      slots.map(async (slot) => {
        const instance = slot.current;
        if (instance.exit) return;
        let series = seriesByPid.get(instance.pid);
        if (!series) {
          series = {
            name: instance.name,
            generation: instance.generation,
            pid: instance.pid,
            samples: [],
            startedAt: instance.startedAt,
            endedAt: instance.startedAt,
            killed: false,
          };
          seriesByPid.set(instance.pid, series);
        }
        const at = Date.now();
        const [resident, heap, cpu] = await Promise.all([
          residentBytes(instance.pid),
          heapUsedBytes(instance),
          cpuSeconds(instance.pid),
        ]);
        if (resident === undefined) return;
        const sample: MemorySample = { at, rss: resident.rss, anon: resident.anon, heap, cpu };
        series.samples.push(sample);
        series.endedAt = at;
      }),
    );
  };

  let stopped = false;
  const outstanding = new Set<Promise<unknown>>();
  const track = (work: Promise<unknown>) => {
    outstanding.add(work);
    void work.finally(() => outstanding.delete(work));
  };
  const skipped = Object.fromEntries(KINDS.map((kind) => [kind, 0])) as Record<Kind, number>;
  const pick = () => members[Math.floor(Math.random() * members.length)]!;
  // Board writes go to members in turn, so none passes the board's per-member limits (4 posts, 12 comments a minute).
  // One turn per kind: a turn shared by posts and comments would give every post to the same few members.
  const turns = { post: 0, comment: 0 };
  const nextWriter = (kind: keyof typeof turns) => members[turns[kind]++ % members.length]!;
  const fire = (kind: Kind) => {
    if (balancer.inFlight >= MAX_IN_FLIGHT) {
      skipped[kind] += 1;
      return;
    }
    const member = pick();
    switch (kind) {
      case 'profile':
        return track(balancer.send(kind, 'GET', '/api/auth/profile', { member }));
      case 'entries.list':
        return track(balancer.send(kind, 'GET', '/api/account/entries?size=20', { member }));
      case 'board.list':
        return track(balancer.send(kind, 'GET', '/api/board/posts?category=community&size=20', { member }));
      case 'entry.create':
        return track(writeEntry(balancer, member, ledger, () => stopped));
      case 'board.post':
        return track(
          writePost(balancer, nextWriter('post'), ledger).then((id) => {
            if (id === undefined) return;
            posts.push(id);
            if (posts.length > 50) posts.shift();
          }),
        );
      case 'board.comment':
        return track(
          writeComment(balancer, nextWriter('comment'), posts[Math.floor(Math.random() * posts.length)]!, ledger),
        );
      case 'login':
        return track(login(balancer, member));
    }
  };

  const loadMs = minutes * 60_000;
  const loadStartedAt = Date.now();
  const loadEndsAt = loadStartedAt + loadMs;
  log(`load started: ${Object.values(RATES).reduce((a, b) => a + b, 0)} requests/s`);

  const driving = (async () => {
    const credit = Object.fromEntries(KINDS.map((kind) => [kind, Math.random()])) as Record<Kind, number>;
    let last = performance.now();
    while (Date.now() < loadEndsAt) {
      await sleep(TICK_MS);
      const now = performance.now();
      const elapsed = (now - last) / 1000;
      last = now;
      for (const kind of KINDS) {
        credit[kind] += RATES[kind] * elapsed;
        while (credit[kind] >= 1) {
          credit[kind] -= 1;
          fire(kind);
        }
      }
    }
  })();
  const sampling = (async () => {
    while (Date.now() < loadEndsAt + 1_000) {
      await sampleOnce();
      await sleep(SAMPLE_EVERY_MS - ((Date.now() - loadStartedAt) % SAMPLE_EVERY_MS));
    }
  })();
  const progress = setInterval(() => {
    const recent = balancer.answers.filter((answer) => answer.answered > Date.now() - 60_000);
    const bad = recent.filter((answer) => answer.status === 0 || answer.status >= 500).length;
    log(
      `${Math.round((Date.now() - loadStartedAt) / 1000)} s: ${recent.length} answers in the last minute, ${bad} 5xx/none, ` +
        `${ledger.acknowledged.size} entries acknowledged, ${balancer.inFlight} in flight, load ${os.loadavg()[0]!.toFixed(2)}`,
    );
  }, 60_000);

  /** Polls each slot's readiness from `from` on; resolves with ms after `start` per slot. */
  const readyAgain = async (targets: Slot[], start: number, full: boolean) => {
    const recovered: Record<string, number> = {};
    await Promise.all(
      targets.map(async (slot) => {
        const deadline = Date.now() + 180_000;
        while (Date.now() < deadline) {
          if (await isReady(slot, full)) {
            recovered[slot.name] = Date.now() - start;
            return;
          }
          await sleep(100);
        }
        recovered[slot.name] = Number.NaN;
      }),
    );
    return recovered;
  };
  const closeWindow = (window: Omit<FaultWindow, 'recoveredAt' | 'end'>): FaultWindow => {
    const recoveredAt =
      window.start + Math.max(...Object.values(window.recovered).map((v) => (Number.isNaN(v) ? 180_000 : v)));
    return { ...window, recoveredAt, end: recoveredAt + MARGIN_MS };
  };

  const windows: FaultWindow[] = [];
  const failoverDetail: string[] = [];
  const notes: string[] = [];
  let failover: { stoppedAt: number; promotedAt: number } | undefined;
  const at = (fraction: number) => sleep(Math.max(0, loadStartedAt + loadMs * fraction - Date.now()));

  // (a) PostgreSQL failover.
  await at(0.25);
  {
    const start = Date.now();
    log('fault (a): stopping the primary (-m immediate), promoting the standby');
    const steps: FaultWindow['steps'] = [];
    await pair.primary.stopServer('immediate');
    steps.push({ what: 'primary down (`pg_ctl -m immediate stop` returned)', at: Date.now() });
    await sleep(200);
    await pair.standby.promote();
    const promotedAt = Date.now();
    steps.push({ what: 'standby promoted (`pg_ctl promote -w` returned)', at: promotedAt });
    const recovered = await readyAgain(slots, start, true);
    const window = closeWindow({ name: 'a', what: '(a) PostgreSQL failover', start, steps, recovered });
    windows.push(window);
    failover = { stoppedAt: steps[0]!.at, promotedAt };
    log(`fault (a) recovered: ${JSON.stringify(recovered)}`);
  }

  // (b) Redis restart.
  await at(0.5);
  {
    const start = Date.now();
    log('fault (b): stopping redis-server, starting it again 5 s later');
    const steps: FaultWindow['steps'] = [];
    await redisServer.stop();
    steps.push({ what: 'redis-server stopped', at: Date.now() });
    const degraded: Record<string, boolean> = {};
    await sleep(2_000);
    for (const api of apis) {
      const response = await fetch(`${api.url}/readyz`, { signal: AbortSignal.timeout(3_000) }).catch(() => undefined);
      degraded[api.name] =
        ((await response?.json().catch(() => undefined)) as { status?: string } | undefined)?.status === 'degraded';
    }
    await sleep(3_000);
    await redisServer.start();
    steps.push({ what: 'redis-server started', at: Date.now() });
    const recovered = await readyAgain(apis, start, true);
    windows.push(closeWindow({ name: 'b', what: '(b) Redis restart', start, steps, recovered }));
    failoverDetail.push(
      `(b): 2 s after the stop, \`/readyz\` said \`degraded\` on ${
        Object.entries(degraded)
          .filter(([, on]) => on)
          .map(([name]) => name)
          .join(', ') || 'no api'
      }.`,
    );
    log(`fault (b) recovered: ${JSON.stringify(recovered)}`);
  }

  // (c) An api replica killed and started again.
  await at(0.75);
  {
    const start = Date.now();
    const target = apis[1]!;
    log(`fault (c): SIGKILL ${target.name}, starting it again 1 s later`);
    const steps: FaultWindow['steps'] = [];
    const old = target.current;
    const next = killAndRestart(target, 1_000);
    await new Promise<void>((resolve) => (old.exit ? resolve() : old.child.once('exit', () => resolve())));
    steps.push({ what: `${target.name} killed (pid ${old.pid})`, at: Date.now() });
    const instance = await next;
    steps.push({ what: `${target.name} started again (pid ${instance.pid})`, at: instance.startedAt });
    const recovered = await readyAgain([target], start, true);
    windows.push(
      closeWindow({ name: 'c', what: `(c) ${target.name} killed (SIGKILL) and restarted`, start, steps, recovered }),
    );
    const series = seriesByPid.get(old.pid);
    if (series) series.killed = true;
    log(`fault (c) recovered: ${JSON.stringify(recovered)}`);
  }

  await driving;
  stopped = true;
  const loadEndedAt = Date.now();
  log('load stopped; waiting for the requests in flight');
  await Promise.all([...outstanding]);
  await sampling;
  clearInterval(progress);

  if (failover) {
    const { stoppedAt, promotedAt } = failover;
    const firstWrite = new Map<string, number>();
    for (const answer of balancer.answers) {
      if (answer.kind !== 'entry.create' || answer.status !== 201 || answer.began < stoppedAt) continue;
      if (!firstWrite.has(answer.replica)) firstWrite.set(answer.replica, answer.answered - promotedAt);
    }
    const refused = balancer.answers.filter(
      (answer) => answer.code === 'IDEMPOTENCY_KEY_IN_USE' && answer.began >= stoppedAt,
    ).length;
    failoverDetail.unshift(
      `(a): first acknowledged entry write sent after the primary went down, per replica: ${
        [...firstWrite].map(([name, after]) => `${name} ${after} ms after \`pg_ctl promote\` returned`).join(', ') ||
        'none'
      }; ${refused} answers 409 \`IDEMPOTENCY_KEY_IN_USE\` after it (keys whose first attempt died with the primary).`,
    );
  }
  // Every acknowledged write on the promoted standby (the current primary).
  const primary = postgres(pair.standby.url.replace(/\/postgres$/, '/nestegg'), { max: 1, onnotice: () => {} });
  const countsOf = async (rows: Array<{ key: string; copies: number }>) =>
    new Map(rows.map((row) => [row.key.slice(ENTRY_MEMO_PREFIX.length), row.copies]));
  const entries = await countsOf(
    await primary<Array<{ key: string; copies: number }>>`
      select memo as key, count(*)::int as copies from account_entry where memo like 'soak %' group by memo`,
  );
  const board = await countsOf(
    await primary<Array<{ key: string; copies: number }>>`
      select title as key, count(*)::int as copies from post where title like 'soak %' group by title
      union all
      select body as key, count(*)::int as copies from comment where body like 'soak %' group by body`,
  );
  const [{ isPrimary }] = await primary<[{ isPrimary: boolean }]>`select not pg_is_in_recovery() as "isPrimary"`;
  await primary.end();
  if (!isPrimary) notes.push('The verification read a server in recovery: the counts below are not from the primary.');
  const written = (keys: Set<string>) => [...keys].filter((key) => entries.has(key)).length;
  const writes: SoakResult['writes'] = {
    attempted: ledger.attempted.size,
    acknowledged: ledger.acknowledged.size,
    lost: [...ledger.acknowledged].filter((key) => !entries.has(key)),
    doubled: [...entries].filter(([, copies]) => copies > 1).map(([key]) => key),
    outcomeUnknown: ledger.outcomeUnknown.size,
    outcomeUnknownWritten: written(ledger.outcomeUnknown),
    refused: ledger.refused.size,
    pending: ledger.pending.size,
    pendingWritten: written(ledger.pending),
    strangers: [...entries.keys()].filter((key) => !ledger.attempted.has(key)).length,
    boardAcknowledged: ledger.boardAcknowledged.size,
    boardLost: [...ledger.boardAcknowledged].filter((key) => !board.has(key)),
    boardDoubled: [...board].filter(([, copies]) => copies > 1).map(([key]) => key),
  };

  const unexpectedExits = slots
    .flatMap((slot) => slot.instances)
    .filter((instance) => instance.exit && !instance.killed)
    .map(
      (instance) =>
        `${instance.name} #${instance.generation} exited (${instance.exit!.code ?? instance.exit!.signal}): ${instance.output.slice(-5).join(' / ')}`,
    );
  const printed = slots
    .flatMap((slot) => slot.instances)
    .map(
      (instance) => `${instance.name}${instance.generation > 1 ? ` #${instance.generation}` : ''} ${instance.lines}`,
    );
  notes.push(
    `Lines the processes printed at LOG_LEVEL=warn (warnings and errors, mostly during the faults): ${printed.join(', ')}.`,
    'The old primary is not brought back as a standby after (a): from then on the run has one PostgreSQL server and no replication.',
  );
  for (const instance of slots.flatMap((slot) => slot.instances)) {
    const errors = instance.output.filter((line) => /"level":(50|60)|ERROR|FATAL/.test(line));
    if (errors.length > 0)
      notes.push(`${instance.name} #${instance.generation}: last error line: \`${errors.at(-1)!.slice(0, 300)}\``);
  }

  return {
    minutes,
    startedAt,
    loadStartedAt,
    loadEndedAt,
    machine,
    loadAverages,
    members: members.length,
    windows,
    marginMs: MARGIN_MS,
    answers: balancer.answers,
    skipped,
    series: [...seriesByPid.values()].sort((a, b) => a.name.localeCompare(b.name) || a.generation - b.generation),
    writes,
    unexpectedExits,
    failoverDetail,
    notes,
  };
}
