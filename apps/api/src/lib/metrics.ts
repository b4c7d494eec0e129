import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The api's metrics (decision O1), in Prometheus text exposition on their own listener. Names and labels follow
 * the OpenTelemetry semantic conventions as exported to Prometheus where one exists (`http_server_…`,
 * `db_client_…`); the service's own carry `nestegg_`. Label values come from closed sets (route templates,
 * methods, status codes, reasons), never from a request's data.
 */
export class ApiMetrics {
  readonly registry = new Registry();

  /** OpenTelemetry's `http.server.request.duration`, with its default buckets. */
  readonly httpRequestDuration = new Histogram({
    name: 'http_server_request_duration_seconds',
    help: 'Duration of HTTP server requests',
    labelNames: ['http_request_method', 'http_route', 'http_response_status_code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10],
    registers: [this.registry],
  });

  /** Requests refused with 503 OVERLOADED, by the signal that refused them. */
  readonly shedRequests = new Counter({
    name: 'nestegg_http_server_shed_requests_total',
    help: 'Requests refused with 503 OVERLOADED, by reason (eventLoopDelay, heapUsedBytes, password_hash_queue_full, password_hash_wait)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  /** Session lookups by how they were answered. */
  readonly sessionLookups = new Counter({
    name: 'nestegg_session_lookups_total',
    help: 'Session lookups by result: cache_hit, cache_miss (read from the PostgreSQL backup), cache_error (Redis failed; read from the backup), not_found',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  readonly redisErrors = new Counter({
    name: 'nestegg_redis_connection_errors_total',
    help: 'Errors of the Redis connection (commands that failed meanwhile show as cache_error session lookups)',
    registers: [this.registry],
  });

  readonly passwordHashWait = new Histogram({
    name: 'nestegg_password_hash_wait_seconds',
    help: 'Time a password hash or check waited for a hashing slot',
    buckets: [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5],
    registers: [this.registry],
  });

  /** Time long jobs paused to give the cores to other requests (decision P35), by job. */
  readonly giveWayPauses = new Counter({
    name: 'nestegg_give_way_pause_seconds_total',
    help: 'Seconds long jobs paused between their steps because other requests arrived meanwhile, by job (statement_import)',
    labelNames: ['job'] as const,
    registers: [this.registry],
  });

  /** Read replicas (decision DB25): reads sent to the primary instead of a replica, by why. */
  readonly readReplicaFallbacks = new Counter({
    name: 'nestegg_db_read_replica_fallbacks_total',
    help: "Requests whose replica-eligible reads went to the primary, by reason: unavailable, lagging, not_standby, not_replayed (the member wrote since the replica's position), position_unknown, busy (a statement moved: the replica's pool was full)",
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  /** Requests whose reads could go to a replica, by where they went and how consistent they had to be. */
  readonly readRequests = new Counter({
    name: 'nestegg_db_read_requests_total',
    help: 'Requests with replica-eligible reads, by target (replica, primary) and consistency (lag-tolerant, read-your-writes)',
    labelNames: ['target', 'consistency'] as const,
    registers: [this.registry],
  });

  readonly readReplicaUp = new Gauge({
    name: 'nestegg_db_read_replica_up',
    help: 'Whether a read replica answered its last probe (1) or not (0)',
    labelNames: ['replica'] as const,
    registers: [this.registry],
  });

  readonly readReplicaLag = new Gauge({
    name: 'nestegg_db_read_replica_lag_seconds',
    help: "How far a read replica's replay is behind, as of its last probe (0 when it replayed all it received)",
    labelNames: ['replica'] as const,
    registers: [this.registry],
  });

  readonly readReplicaLagBytes = new Gauge({
    name: 'nestegg_db_read_replica_lag_bytes',
    help: 'WAL a read replica received and has not replayed, as of its last probe',
    labelNames: ['replica'] as const,
    registers: [this.registry],
  });

  constructor(options: { runtime?: boolean } = {}) {
    this.registry.setDefaultLabels({ service_name: 'nestegg-api' });
    // Process and runtime: CPU, memory, heap spaces, event-loop delay, GC durations, handles.
    if (options.runtime !== false) collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 20 });
  }

  /**
   * `nestegg_dependency_up{dependency}`: 1 when the database or Redis answered a probe made at scrape time, 0
   * when not (Redis down with the instance serving from the PostgreSQL backup is `degraded`: decision FS3).
   */
  observeDependencies(probe: () => Promise<Record<string, 'ok' | 'down' | 'not configured'>>): void {
    new Gauge({
      name: 'nestegg_dependency_up',
      help: 'Whether a dependency answered a probe at scrape time (1) or not (0): database, cache',
      labelNames: ['dependency'] as const,
      registers: [this.registry],
      async collect() {
        for (const [dependency, state] of Object.entries(await probe())) {
          if (state !== 'not configured') this.set({ dependency }, state === 'ok' ? 1 : 0);
        }
      },
    });
  }

  /** A gauge read when scraped (a queue's depth). */
  observe(name: string, help: string, read: () => number): void {
    new Gauge({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.set(read());
      },
    });
  }

  /**
   * The database pool as OpenTelemetry names it: connections by state (`used`, `idle`: permits taken and
   * free), requests waiting for one, the most allowed, and how long each waited.
   */
  observeConnectionPool(pool: { inUse: number; pending: number; size: number }): void {
    const labels = { db_client_connection_pool_name: 'nestegg' };
    new Gauge({
      name: 'db_client_connection_count',
      help: 'Connections of the pool by state',
      labelNames: ['db_client_connection_pool_name', 'db_client_connection_state'] as const,
      registers: [this.registry],
      collect() {
        this.set({ ...labels, db_client_connection_state: 'used' }, pool.inUse);
        this.set({ ...labels, db_client_connection_state: 'idle' }, pool.size - pool.inUse);
      },
    });
    new Gauge({
      name: 'db_client_connection_pending_requests',
      help: 'Operations waiting for a connection of the pool',
      labelNames: ['db_client_connection_pool_name'] as const,
      registers: [this.registry],
      collect() {
        this.set(labels, pool.pending);
      },
    });
    new Gauge({
      name: 'db_client_connection_max',
      help: 'Most connections the pool opens',
      labelNames: ['db_client_connection_pool_name'] as const,
      registers: [this.registry],
      collect() {
        this.set(labels, pool.size);
      },
    });
  }

  readonly connectionWait = new Histogram({
    name: 'db_client_connection_wait_time_seconds',
    help: 'Time an operation waited for a connection of the pool',
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5],
    registers: [this.registry],
  });

  /** Statements outside transactions and whole transactions, from taking a connection to giving it back. */
  readonly operationDuration = new Histogram({
    name: 'db_client_operation_duration_seconds',
    help: 'Duration of database operations (a statement, or a whole transaction), by outcome',
    labelNames: ['db_system_name', 'outcome'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
}

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'CONNECT', 'TRACE']);

/** The method as OpenTelemetry records it: a known method, else `_OTHER` (a client chooses the string). */
export const metricMethod = (method: string): string => (KNOWN_METHODS.has(method) ? method : '_OTHER');
