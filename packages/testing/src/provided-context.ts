declare module 'vitest' {
  export interface ProvidedContext {
    /** Name of the migrated template database, set by the global setup. */
    templateDatabase: string;
    /** `host:port,…` of the run's Redis Cluster, when the package's config asks for one (`redisCluster: true`). */
    redisClusterNodes?: string;
    /** Port of the run's PgBouncer (transaction mode), when the config asks for one (`pgbouncer: true`, decision DB17). */
    pgbouncerPort?: number;
  }
}

export {};
