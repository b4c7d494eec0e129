/** The logging the membership code needs; pino and Fastify's logger fit. */
export interface MembershipLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}
