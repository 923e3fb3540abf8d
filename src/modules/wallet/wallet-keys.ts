import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';

/**
 * Checks of uploaded wallet keys, before anything is stored: each PEM parses, the certificate and
 * the private key belong together, Google's key is RSA (its save links are RS256). Answers the
 * problems by field name, the way the console's forms show them.
 */
export interface AppleKeys {
  pass_type_id: string;
  team_id: string;
  certificate_pem: string;
  key_pem: string;
  wwdr_pem: string;
}

export interface GoogleKeys {
  issuer_id: string;
  service_account_email: string;
  private_key_pem: string;
}

export interface WalletKeys {
  apple?: AppleKeys;
  google?: GoogleKeys;
}

export type KeyProblem =
  | 'missing'
  | 'not_a_certificate'
  | 'not_a_private_key'
  | 'key_does_not_match'
  | 'not_rsa'
  | 'pass_type_id_mismatch'
  | 'invalid_format';

export type KeyProblems = Record<string, KeyProblem>;

function certificate(pem: string): X509Certificate | null {
  try {
    return new X509Certificate(pem);
  } catch {
    return null;
  }
}

function privateKey(pem: string): KeyObject | null {
  try {
    return createPrivateKey(pem);
  } catch {
    return null;
  }
}

/** The pass type identifier written into the certificate's subject (UID=pass.…), if any. */
function certificatePassType(cert: X509Certificate): string | null {
  return /(?:^|\n)UID=([^\n]+)/.exec(cert.subject)?.[1]?.trim() ?? null;
}

export function appleKeyProblems(k: Partial<AppleKeys>): KeyProblems {
  const problems: KeyProblems = {};
  if (!k.pass_type_id?.trim()) problems.pass_type_id = 'missing';
  else if (!/^[A-Za-z0-9.-]{1,200}$/.test(k.pass_type_id.trim())) problems.pass_type_id = 'invalid_format';
  if (!k.team_id?.trim()) problems.team_id = 'missing';
  else if (!/^[A-Z0-9]{1,20}$/.test(k.team_id.trim())) problems.team_id = 'invalid_format';
  const cert = k.certificate_pem?.trim() ? certificate(k.certificate_pem) : null;
  if (!k.certificate_pem?.trim()) problems.certificate_pem = 'missing';
  else if (!cert) problems.certificate_pem = 'not_a_certificate';
  const key = k.key_pem?.trim() ? privateKey(k.key_pem) : null;
  if (!k.key_pem?.trim()) problems.key_pem = 'missing';
  else if (!key) problems.key_pem = 'not_a_private_key';
  if (cert && key && !cert.checkPrivateKey(key)) problems.key_pem = 'key_does_not_match';
  const uid = cert ? certificatePassType(cert) : null;
  if (uid && k.pass_type_id?.trim() && !problems.pass_type_id && uid !== k.pass_type_id.trim())
    problems.pass_type_id = 'pass_type_id_mismatch';
  if (!k.wwdr_pem?.trim()) problems.wwdr_pem = 'missing';
  else if (!certificate(k.wwdr_pem)) problems.wwdr_pem = 'not_a_certificate';
  return problems;
}

export function googleKeyProblems(k: Partial<GoogleKeys>): KeyProblems {
  const problems: KeyProblems = {};
  if (!k.issuer_id?.trim()) problems.issuer_id = 'missing';
  else if (!/^\d{1,30}$/.test(k.issuer_id.trim())) problems.issuer_id = 'invalid_format';
  if (!k.service_account_email?.trim()) problems.service_account_email = 'missing';
  else if (!/^[^@\s]+@[^@\s]+$/.test(k.service_account_email.trim())) problems.service_account_email = 'invalid_format';
  if (!k.private_key_pem?.trim()) problems.private_key_pem = 'missing';
  else {
    const key = privateKey(k.private_key_pem);
    if (!key) problems.private_key_pem = 'not_a_private_key';
    else if (key.asymmetricKeyType !== 'rsa') problems.private_key_pem = 'not_rsa';
  }
  return problems;
}

/**
 * Google hands out a service account's key as a JSON file ({client_email, private_key, …}); the
 * console takes that file's text as well as a bare PEM.
 */
export function fromServiceAccountJson(text: string): { email?: string; pem: string } {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return { pem: text };
  try {
    const json = JSON.parse(trimmed) as { client_email?: unknown; private_key?: unknown };
    return {
      ...(typeof json.client_email === 'string' ? { email: json.client_email } : {}),
      pem: typeof json.private_key === 'string' ? json.private_key : '',
    };
  } catch {
    return { pem: '' };
  }
}
