import type { Cluster, Redis } from 'ioredis';

/** CRC16/XMODEM table, as Redis Cluster hashes keys with it. */
const table = (() => {
  const values = new Uint16Array(256);
  for (let byte = 0; byte < 256; byte += 1) {
    let crc = byte << 8;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    values[byte] = crc;
  }
  return values;
})();

function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) crc = ((crc << 8) & 0xffff) ^ table[((crc >> 8) ^ byte) & 0xff]!;
  return crc;
}

/** The cluster slot of a key (its hash tag `{…}` when it has a non-empty one), as `CLUSTER KEYSLOT` says. */
export function keySlot(key: string | Buffer): number {
  const bytes = typeof key === 'string' ? Buffer.from(key) : key;
  const open = bytes.indexOf(0x7b);
  if (open !== -1) {
    const close = bytes.indexOf(0x7d, open + 1);
    if (close > open + 1) return crc16(bytes.subarray(open + 1, close)) % 16384;
  }
  return crc16(bytes) % 16384;
}

/** A command (or transaction) whose keys fall in more than one slot: a Redis Cluster refuses it (CROSSSLOT). */
export interface CrossSlotCall {
  command: string;
  keys: string[];
  slots: number[];
}

interface SentCommand {
  name: string;
  getKeys(): Array<string | Buffer>;
}

/**
 * Records every command the client sends (its keys as sent, key prefix included) and reports those whose
 * keys span slots: a multi-key command, a script's KEYS, or every key between MULTI and EXEC. Works on one
 * Redis too, so a test on a single server still fails on keys a cluster would refuse. `stop()` unwraps.
 */
export function watchCrossSlot(client: Redis | Cluster): {
  calls: CrossSlotCall[];
  multiKeyCalls: number;
  stop(): void;
} {
  const target = client as unknown as { sendCommand: (command: SentCommand, ...rest: unknown[]) => unknown };
  const original = target.sendCommand;
  const result = { calls: [] as CrossSlotCall[], multiKeyCalls: 0, stop: () => {} };
  let transaction: { keys: string[] } | null = null;
  const check = (command: string, keys: string[]) => {
    if (keys.length < 2) return;
    result.multiKeyCalls += 1;
    const slots = [...new Set(keys.map(keySlot))];
    if (slots.length > 1) result.calls.push({ command, keys, slots });
  };
  target.sendCommand = function (this: unknown, command: SentCommand, ...rest: unknown[]) {
    const name = command.name.toLowerCase();
    const keys = command.getKeys().map(String);
    if (name === 'multi') transaction = { keys: [] };
    else if (name === 'exec' || name === 'discard') {
      if (transaction && name === 'exec') check('multi/exec', transaction.keys);
      transaction = null;
    } else if (transaction) transaction.keys.push(...keys);
    else check(name, keys);
    return original.call(this, command, ...rest);
  };
  result.stop = () => {
    target.sendCommand = original;
  };
  return result;
}
