import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { account, type Database } from '@nestegg/db';
import { and, asc, isNotNull, like, not, sql } from 'drizzle-orm';

/** An AES-256 key by id (`ACCOUNT_NUMBER_KEYS`). */
export interface EncryptionKey {
  id: string;
  key: Buffer;
}

const PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A stored account number that no configured key can open (a removed key, or a tampered value). */
export class UnreadableAccountNumberError extends Error {
  constructor(keyId: string) {
    super(`An account number is encrypted under key "${keyId}", which is not configured or does not match.`);
  }
}

/**
 * Account numbers at rest: AES-256-GCM under the current key, stored as
 * `enc:v1:<key id>:<iv>:<ciphertext+tag>` (base64url). Any configured key decrypts its own envelopes, so
 * old keys stay readable after a rotation. Without keys, numbers pass through as they are (the spec's rule),
 * and plain values stored earlier stay readable once keys are set. The contract refuses `:` in account
 * numbers, so a plain value can never look like an envelope.
 */
export class AccountNumberCipher {
  private readonly keys: Map<string, Buffer>;

  constructor(private readonly deps: { keys: EncryptionKey[]; currentKeyId: string | null }) {
    this.keys = new Map(deps.keys.map((entry) => [entry.id, entry.key]));
  }

  /** The key new numbers are encrypted under; null = stored as plain text. */
  get currentKeyId(): string | null {
    return this.deps.currentKeyId;
  }

  encrypt(plain: string | null): string | null {
    const keyId = this.deps.currentKeyId;
    if (plain === null || keyId === null) return plain;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keyOf(keyId), iv);
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${PREFIX}${keyId}:${iv.toString('base64url')}:${sealed.toString('base64url')}`;
  }

  decrypt(stored: string | null): string | null {
    if (stored === null || !stored.startsWith(PREFIX)) return stored;
    const [keyId = '', iv = '', sealed = ''] = stored.slice(PREFIX.length).split(':');
    try {
      const bytes = Buffer.from(sealed, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', this.keyOf(keyId), Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      throw new UnreadableAccountNumberError(keyId);
    }
  }

  private keyOf(keyId: string): Buffer {
    const key = this.keys.get(keyId);
    if (!key) throw new UnreadableAccountNumberError(keyId);
    return key;
  }
}

export interface ReencryptionReport {
  /** Numbers now under the current key that were not before. */
  reencrypted: number;
  /** Numbers no configured key opens: left as they are. */
  unreadable: number;
  /** Numbers already under the current key. */
  alreadyCurrent: number;
}

/**
 * Moves every stored account number (plain, or under another key) to the current key, `batchSize` rows
 * per transaction, in key order (member, id). Idempotent: numbers already under the current key are not touched. A row
 * changed meanwhile by its member keeps the member's value (the update matches the value it read). This
 * is the one wallet operation across all members: it is the operator's key rotation.
 */
export async function reencryptAccountNumbers(
  db: Database,
  cipher: AccountNumberCipher,
  options: { batchSize?: number } = {},
): Promise<ReencryptionReport> {
  const keyId = cipher.currentKeyId;
  if (keyId === null) throw new Error('No current account-number key is configured (ACCOUNT_NUMBER_KEY_ID).');
  const batchSize = options.batchSize ?? 500;
  const report: ReencryptionReport = { reencrypted: 0, unreadable: 0, alreadyCurrent: 0 };
  const current = like(account.accountNumber, `${PREFIX}${keyId.replace(/[\\%_]/g, (c) => `\\${c}`)}:%`);
  const [counted] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(account)
    .where(and(isNotNull(account.accountNumber), current));
  report.alreadyCurrent = counted?.n ?? 0;

  let after = { memberId: 0, id: 0 };
  for (;;) {
    const rows = await db
      .select({ memberId: account.memberId, id: account.id, accountNumber: account.accountNumber })
      .from(account)
      .where(
        and(
          sql`(${account.memberId}, ${account.id}) > (${after.memberId}::int, ${after.id}::int)`,
          isNotNull(account.accountNumber),
          not(current),
        ),
      )
      .orderBy(asc(account.memberId), asc(account.id))
      .limit(batchSize);
    if (rows.length === 0) return report;
    const last = rows.at(-1)!;
    after = { memberId: last.memberId, id: last.id };
    const moves = reencryptBatch(cipher, rows, report);
    if (moves.length > 0) report.reencrypted += await writeMoves(db, moves);
  }
}

interface Move {
  memberId: number;
  id: number;
  from: string;
  to: string;
}

function reencryptBatch(
  cipher: AccountNumberCipher,
  rows: { memberId: number; id: number; accountNumber: string | null }[],
  report: ReencryptionReport,
): Move[] {
  const moves: Move[] = [];
  for (const row of rows) {
    try {
      const from = row.accountNumber!;
      moves.push({ memberId: row.memberId, id: row.id, from, to: cipher.encrypt(cipher.decrypt(from))! });
    } catch (error) {
      if (!(error instanceof UnreadableAccountNumberError)) throw error;
      report.unreadable += 1;
    }
  }
  return moves;
}

/** One statement per batch; a row whose number changed since it was read is skipped. */
async function writeMoves(db: Database, moves: Move[]): Promise<number> {
  const rows = JSON.stringify(
    moves.map((move) => ({ member_id: move.memberId, id: move.id, from_value: move.from, to_value: move.to })),
  );
  const updated = await db.execute(sql`
    update ${account} set account_number = m.to_value
      from jsonb_to_recordset(${rows}::jsonb) as m(member_id int, id int, from_value text, to_value text)
     where ${account.memberId} = m.member_id and ${account.id} = m.id and ${account.accountNumber} = m.from_value
    returning ${account.id}`);
  return updated.length;
}
