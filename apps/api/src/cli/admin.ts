/**
 * Administrator accounts from the command line: the first admin can only come from here (no HTTP route
 * lets a non-admin grant ADMIN).
 *
 *   pnpm --filter @nestegg/api admin promote <email>
 *   pnpm --filter @nestegg/api admin create <email> <displayName>
 *   pnpm --filter @nestegg/api admin reencrypt-account-numbers [batchSize]
 *   node dist/cli/admin.js promote <email>
 *
 * Reads DATABASE_URL (required) and REDIS_URL or REDIS_CLUSTER_NODES / REDIS_KEY_PREFIX (optional: used to drop the cached copies
 * of the promoted member's sessions). `create` takes the password from ADMIN_PASSWORD, or asks for it
 * twice on the terminal without echo, or reads the first line of piped stdin. `reencrypt-account-numbers`
 * moves every stored wallet account number (plain, or under an older key) to ACCOUNT_NUMBER_KEY_ID, in
 * batches; it is idempotent and prints the counts (never a number).
 *
 * Exit codes: 0 done, 1 the operation failed (no such account, e-mail taken, database error), 2 usage or
 * configuration error.
 */
import { DisplayNameSchema, EmailSchema, PasswordSchema } from '@nestegg/contract';
import { destination, pino } from 'pino';
import { InvalidEnvironmentError, loadEnv } from '../env.js';
import { openInfrastructure } from '../infrastructure.js';
import { AppError } from '../lib/errors.js';
import { createServices } from '../services.js';

const USAGE = `Usage:
  admin promote <email>                 give an existing account the ADMIN role
  admin create <email> <displayName>    create a new LOCAL account with the ADMIN role
                                        (password from ADMIN_PASSWORD, else prompted)
  admin reencrypt-account-numbers [batchSize]
                                        re-encrypt every wallet account number under
                                        ACCOUNT_NUMBER_KEY_ID (default batch 500)
Environment: DATABASE_URL (required), REDIS_URL or REDIS_CLUSTER_NODES and REDIS_KEY_PREFIX (optional),
ACCOUNT_NUMBER_KEYS and ACCOUNT_NUMBER_KEY_ID (for reencrypt-account-numbers).`;

/** A failure with a message for the operator and an exit code. */
class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2,
  ) {
    super(message);
  }
}

type Command =
  | { name: 'promote'; email: string }
  | { name: 'create'; email: string; displayName: string }
  | { name: 'reencrypt-account-numbers'; batchSize: number };

const BATCH_SIZE_MAX = 10_000;

function batchSizeOf(value: string | undefined): number {
  if (value === undefined) return 500;
  const size = Number(value);
  if (!Number.isInteger(size) || size < 1 || size > BATCH_SIZE_MAX) {
    throw new CliError(`The batch size must be a whole number from 1 to ${BATCH_SIZE_MAX}.\n\n${USAGE}`, 2);
  }
  return size;
}

function parseCommand(args: string[]): Command {
  const [name, ...rest] = args;
  const email = (value: string | undefined) => {
    const parsed = EmailSchema.safeParse(value ?? '');
    if (!parsed.success) throw new CliError(`"${value ?? ''}" is not a valid e-mail address.\n\n${USAGE}`, 2);
    return parsed.data;
  };
  if (name === 'reencrypt-account-numbers' && rest.length <= 1) return { name, batchSize: batchSizeOf(rest[0]) };
  if (name === 'promote' && rest.length === 1) return { name, email: email(rest[0]) };
  if (name === 'create' && rest.length === 2) {
    const displayName = DisplayNameSchema.safeParse(rest[1]);
    if (!displayName.success) throw new CliError('The display name must be 1 to 30 characters.', 2);
    return { name, email: email(rest[0]), displayName: displayName.data };
  }
  throw new CliError(USAGE, 2);
}

/** Warnings (a Redis outage, say) go to stderr, so stdout carries only the result. */
const stderrLogger = pino({ level: 'warn' }, destination(2));

/** Reads a line from the terminal without echoing it. */
function promptHidden(question: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(question);
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = (error?: Error) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n' || char === '\u0004') return finish();
        if (char === '\u0003') return finish(new CliError('Cancelled.', 2));
        if (char === '\u007f' || char === '\b') value = value.slice(0, -1);
        else value += char;
      }
    };
    stdin.on('data', onData);
  });
}

async function firstLineOfStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0] ?? '';
}

async function readPassword(): Promise<string> {
  let password = process.env.ADMIN_PASSWORD;
  if (password === undefined || password === '') {
    if (process.stdin.isTTY) {
      password = await promptHidden('Password: ');
      if ((await promptHidden('Repeat the password: ')) !== password) {
        throw new CliError('The passwords do not match.', 2);
      }
    } else {
      password = await firstLineOfStdin();
    }
  }
  const parsed = PasswordSchema.safeParse(password);
  if (!parsed.success) throw new CliError('The password must be 8 to 128 characters.', 2);
  return parsed.data;
}

function readEnvironment() {
  if (!process.env.DATABASE_URL) {
    throw new CliError('DATABASE_URL is not set: export DATABASE_URL=postgres://user@host:5432/dbname and retry.', 2);
  }
  try {
    return loadEnv();
  } catch (error) {
    if (error instanceof InvalidEnvironmentError) throw new CliError(error.message, 2);
    throw error;
  }
}

/** Key rotation: prints the counts; unreadable numbers (a key missing from the list) fail the run. */
async function reencryptAccountNumbers(
  wallets: ReturnType<typeof createServices>['wallets'],
  keyId: string,
  batchSize: number,
): Promise<void> {
  const report = await wallets.reencryptAccountNumbers({ batchSize });
  console.log(
    `Re-encrypted ${report.reencrypted} account numbers under key "${keyId}"; ${report.alreadyCurrent} were already under it.`,
  );
  if (report.unreadable > 0) {
    throw new CliError(
      `${report.unreadable} account numbers could not be decrypted and were left as they are: is their key missing from ACCOUNT_NUMBER_KEYS?`,
      1,
    );
  }
}

async function run(args: string[]): Promise<void> {
  const command = parseCommand(args);
  const env = readEnvironment();
  const password = command.name === 'create' ? await readPassword() : '';
  if (command.name === 'reencrypt-account-numbers' && !env.ACCOUNT_NUMBER_KEY_ID) {
    throw new CliError('Set ACCOUNT_NUMBER_KEYS and ACCOUNT_NUMBER_KEY_ID: there is no key to encrypt under.', 2);
  }
  // The same services the api runs; Redis (when configured) drops cached copies of promoted sessions.
  const { infrastructure, close } = await openInfrastructure(env, stderrLogger, {
    applicationName: 'nestegg-admin-cli',
    poolSize: 2,
    readReplicas: false,
  });
  const { members, wallets } = createServices(infrastructure);
  try {
    if (command.name === 'reencrypt-account-numbers') {
      await reencryptAccountNumbers(wallets, env.ACCOUNT_NUMBER_KEY_ID!, command.batchSize);
    } else if (command.name === 'promote') {
      const promoted = await members.promoteToAdmin(command.email);
      console.log(`${promoted.email} (member ${promoted.id}) is now an ADMIN.`);
      if (promoted.status === 'SUSPENDED') {
        console.error('warning: this account is SUSPENDED and cannot log in until an admin reactivates it.');
      }
    } else {
      const created = await members.createAdmin({ email: command.email, displayName: command.displayName, password });
      console.log(`Created ADMIN ${created.email} (member ${created.id}).`);
    }
  } catch (error) {
    if (error instanceof AppError) {
      const hint =
        error.code === 'NOT_FOUND' && 'email' in command
          ? `No account uses the e-mail ${command.email}.`
          : error.message;
      throw new CliError(hint, 1);
    }
    throw error;
  } finally {
    await close();
  }
}

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ETIMEDOUT',
  'CONNECT_TIMEOUT',
  // Several hosts, none writable (a failover under way, decision FO33).
  'CONNECTION_TARGET_SESSION_ATTRS',
]);
const isUnreachable = (error: unknown): boolean =>
  error instanceof Error && UNREACHABLE.has(String((error as { code?: unknown }).code));

run(process.argv.slice(2)).then(
  () => process.exit(0),
  (error: unknown) => {
    if (error instanceof CliError) {
      console.error(error.message);
      process.exit(error.exitCode);
    }
    if (isUnreachable(error)) {
      console.error(
        `admin: cannot reach the database (${(error as Error).message}). Check DATABASE_URL; ` +
          'with the embedded PostgreSQL, keep `npm start` running while you use this command.',
      );
      process.exit(1);
    }
    console.error('admin: failed:', error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  },
);
