import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): the secret is `whsec_` +
 * base64 of 32 random bytes; the signature is `v1,` + base64(HMAC-SHA256(key, "{id}.{timestamp}.{body}"))
 * with key = the base64-decoded part after `whsec_`. Several signatures are space-separated.
 */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The webhook-signature header: the current secret, and the previous one while it still signs. */
export function signatureHeader(secrets: string[], id: string, timestamp: number, body: string): string {
  return secrets.map((s) => sign(s, id, timestamp, body)).join(' ');
}
