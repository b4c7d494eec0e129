/** An AES-256 key by id (`ACCOUNT_NUMBER_KEYS`). */
export interface EncryptionKey {
  id: string;
  key: Buffer;
}

/** Account-number encryption (placeholder until implemented). */
export class AccountNumberCipher {
  constructor(readonly deps: { keys: EncryptionKey[]; currentKeyId: string | null }) {}
}
