// DKIM signing keys for custom domains: RSA 2048 (RFC 8301 asks for at least
// 1024 and recommends 2048; larger keys no longer fit many DNS providers' TXT
// fields), made with Web Crypto so no OpenSSL binding is needed.
export type DkimKeyPair = {
  privateKeyPem: string; // PKCS#8, what nodemailer's and mailauth's signers accept
  publicKeyBase64: string; // SubjectPublicKeyInfo DER in base64: the p= tag value
};

export async function generateDkimKeyPair(): Promise<DkimKeyPair> {
  const { privateKey, publicKey } = await crypto.subtle.generateKey(
    {
      name: "RSASSA-PKCS1-v1_5",
      modulusLength: 2048,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: "SHA-256",
    },
    true,
    ["sign", "verify"],
  );
  const pkcs8 = await crypto.subtle.exportKey("pkcs8", privateKey);
  const spki = await crypto.subtle.exportKey("spki", publicKey);
  return { privateKeyPem: toPem(pkcs8, "PRIVATE KEY"), publicKeyBase64: toBase64(spki) };
}

function toBase64(der: ArrayBuffer): string {
  let binary = "";
  for (const byte of new Uint8Array(der)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function toPem(der: ArrayBuffer, label: string): string {
  const lines = toBase64(der).match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}
