declare module 'vitest' {
  export interface ProvidedContext {
    /** Name of the migrated template database, set by the global setup. */
    templateDatabase: string;
  }
}

export {};
