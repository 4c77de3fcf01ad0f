// Identifiers carry a typed prefix so an id in a log says what it is (mbx_…, msg_…, key_…).

const alphabet = "0123456789abcdefghjkmnpqrstvwxyz"; // Crockford base32, lower case

export type IdPrefix =
  | "acc"
  | "raw"
  | "key"
  | "mbx"
  | "dom"
  | "sch"
  | "usr"
  | "msg"
  | "att"
  | "thr"
  | "drf"
  | "evt"
  | "sle"
  | "sup"
  | "whd"
  | "out"
  | "req"
  | "con"
  | "dat"
  | "rev"
  | "fbk"
  | "stg";

export function randomBase32(length: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  let out = "";
  for (const byte of bytes) out += alphabet[byte & 31];
  return out;
}

/** 24 base32 characters: 120 random bits, enough that ids are unguessable as well as unique. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase32(24)}`;
}
