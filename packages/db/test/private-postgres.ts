// The private PostgreSQL of @nestegg/testing, imported by path: @nestegg/testing depends on @nestegg/db, so
// this package cannot depend on it.
export {
  type PrivatePostgres,
  type PrivateReplicatedPostgres,
  startPrivatePostgres,
  startPrivateReplicatedPostgres,
} from '../../testing/src/private-postgres';
