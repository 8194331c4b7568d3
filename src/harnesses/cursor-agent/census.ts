// Counting the stale roots of a chat for `tx-usage sources` ("stale roots
// ignored"). Blob types are not stored, so this is a wire-level
// classification: a blob counts as a ConversationStateStructure root when
// every top-level field is well-formed, has a root field number with the
// wire type the contract gives it, every blob-id field is exactly 32 bytes,
// string fields are UTF-8, and it carries a conversation (turns, token
// details or at least two prompt messages).
//
// This feeds ONE counter and nothing else: turns, occupancy and peaks come
// only from the walk that starts at meta.latestRootBlobId (contract gotcha:
// walking all blobs double-counts and reports a wrong peak).
import type { SqliteDb } from '../../io/sqlite.js';

const VARINT = 0;
const I64 = 1;
const LEN = 2;
const I32 = 5;

/** Root field number → wire type, from the contract's ConversationStateStructure field list. */
const ROOT_WIRE: Record<number, number> = {
  1: LEN,
  2: LEN,
  3: LEN,
  4: LEN,
  5: LEN,
  6: LEN,
  7: LEN,
  8: LEN,
  9: LEN,
  10: VARINT,
  11: LEN,
  12: LEN,
  13: LEN,
  14: LEN,
  15: LEN,
  16: LEN,
  17: VARINT,
  18: LEN,
  19: LEN,
  20: LEN,
  21: LEN,
  22: LEN,
  24: LEN,
  26: VARINT,
  27: LEN,
  29: LEN,
  30: LEN,
  31: LEN,
  32: LEN,
  33: VARINT,
  34: LEN,
  35: LEN,
  36: LEN,
  37: VARINT,
  38: LEN,
  39: VARINT,
  40: LEN,
  42: LEN,
};
/** Fields typed "various" in the contract (23, 25, 28) and future ones (41, > 42): any well-formed wire type. */
const ANY_WIRE = new Set([23, 25, 28, 41]);
const BLOB_ID_FIELDS = new Set([1, 3, 6, 7, 8, 11, 13]);
const STRING_FIELDS = new Set([4, 9, 18, 19, 22, 27, 34, 35, 36, 38, 42]);

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Reads a varint at `pos`; returns [value, next] or null when truncated/overlong. */
function varint(buf: Uint8Array, pos: number): [number, number] | null {
  let v = 0;
  let mul = 1;
  for (let i = 0; i < 10; i++) {
    if (pos >= buf.length) return null;
    const b = buf[pos++]!;
    v += (b & 0x7f) * mul;
    if (b < 0x80) return [v, pos];
    mul *= 128;
  }
  return null;
}

export function looksLikeRoot(buf: Uint8Array): boolean {
  let pos = 0;
  let promptIds = 0;
  let hasConversation = false;
  while (pos < buf.length) {
    const tag = varint(buf, pos);
    if (!tag) return false;
    pos = tag[1];
    const field = Math.floor(tag[0] / 8);
    const wire = tag[0] % 8;
    if (field === 0) return false;
    const expected = ROOT_WIRE[field];
    if (expected === undefined ? !(ANY_WIRE.has(field) || field > 42) : expected !== wire) return false;
    if (wire === VARINT) {
      const v = varint(buf, pos);
      if (!v) return false;
      pos = v[1];
    } else if (wire === I64) {
      pos += 8;
    } else if (wire === I32) {
      pos += 4;
    } else if (wire === LEN) {
      const len = varint(buf, pos);
      if (!len) return false;
      const start = len[1];
      const end = start + len[0];
      if (end > buf.length) return false;
      if (BLOB_ID_FIELDS.has(field) && len[0] !== 32) return false;
      if (STRING_FIELDS.has(field)) {
        try {
          utf8.decode(buf.subarray(start, end));
        } catch {
          return false;
        }
      }
      if (field === 1) promptIds++;
      if (field === 5 || field === 8) hasConversation = true;
      pos = end;
    } else {
      return false; // groups (3/4) and reserved wire types never occur in a root
    }
    if (pos > buf.length) return false;
  }
  return hasConversation || promptIds >= 2;
}

/**
 * First bytes a root can start with: a one-byte tag of a root field 1–15 with
 * its wire type, or the first byte of a multi-byte tag (fields ≥ 16). Lets
 * SQLite skip JSON prompt messages ('{') and most raw text without handing
 * their bytes to JS.
 */
function firstByteFilter(): string {
  const bytes: string[] = [];
  for (let f = 1; f <= 15; f++) {
    const w = ROOT_WIRE[f];
    if (w !== undefined) bytes.push(`x'${((f << 3) | w).toString(16).padStart(2, '0')}'`);
  }
  return `(substr(data, 1, 1) IN (${bytes.join(', ')}) OR substr(data, 1, 1) >= x'80')`;
}

/** Number of blobs that classify as roots and are not among `reachable` (ids of every blob the walk touched). */
export function countStaleRoots(db: SqliteDb, reachable: ReadonlySet<string>): number {
  let stale = 0;
  const stmt = db.prepare(`SELECT id, data FROM blobs WHERE typeof(data) = 'blob' AND ${firstByteFilter()}`);
  for (const row of stmt.iterate() as IterableIterator<{ id: string; data: Buffer }>) {
    if (reachable.has(String(row.id).toLowerCase())) continue;
    if (looksLikeRoot(row.data)) stale++;
  }
  return stale;
}
