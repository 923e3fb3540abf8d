import { createHash, generateKeyPairSync } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import forge from 'node-forge';

/**
 * Test material for wallet passes: a root CA, a WWDR-like intermediate and a Pass Type ID
 * certificate made here (node-forge), an RSA key standing in for a Google service account, a
 * reader for the .pkpass zip and a PKCS#7 check (node-forge builds signatures but does not verify
 * them, so the check is spelled out: chain, message digest, signature over the signed attributes).
 */
const rsa = () => generateKeyPairSync('rsa', { modulusLength: 2048 });

function certificate(opts: {
  subject: forge.pki.CertificateField[];
  issuer: forge.pki.CertificateField[];
  publicPem: string;
  signerKeyPem: string;
  serial: string;
  ca: boolean;
}): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(opts.publicPem);
  cert.serialNumber = opts.serial;
  cert.validity.notBefore = new Date('2020-01-01T00:00:00Z');
  cert.validity.notAfter = new Date('2040-01-01T00:00:00Z');
  cert.setSubject(opts.subject);
  cert.setIssuer(opts.issuer);
  cert.setExtensions([
    { name: 'basicConstraints', cA: opts.ca },
    { name: 'keyUsage', keyCertSign: opts.ca, digitalSignature: true },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(opts.signerKeyPem), forge.md.sha256.create());
  return cert;
}

export interface TestAppleCredentials {
  caPem: string;
  wwdrPem: string;
  certificatePem: string;
  keyPem: string;
  /** a key of another certificate: uploading it with certificatePem must be refused */
  otherKeyPem: string;
  passTypeId: string;
  teamId: string;
}

export function makeAppleCredentials(passTypeId = 'pass.test.admit', teamId = 'ADMIT12345'): TestAppleCredentials {
  const pem = (k: ReturnType<typeof rsa>) => ({
    pub: k.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    priv: k.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  });
  const [ca, wwdr, signer, other] = [rsa(), rsa(), rsa(), rsa()].map(pem) as Array<{ pub: string; priv: string }>;
  const caName = [
    { name: 'commonName', value: 'Test Root CA' },
    { name: 'organizationName', value: 'Test' },
  ];
  const wwdrName = [
    { name: 'commonName', value: 'Test Worldwide Developer Relations' },
    { name: 'organizationName', value: 'Test' },
  ];
  const caCert = certificate({
    subject: caName,
    issuer: caName,
    publicPem: ca!.pub,
    signerKeyPem: ca!.priv,
    serial: '01',
    ca: true,
  });
  const wwdrCert = certificate({
    subject: wwdrName,
    issuer: caName,
    publicPem: wwdr!.pub,
    signerKeyPem: ca!.priv,
    serial: '02',
    ca: true,
  });
  const signerCert = certificate({
    subject: [
      { type: '0.9.2342.19200300.100.1.1', value: passTypeId },
      { name: 'commonName', value: `Pass Type ID: ${passTypeId}` },
      { name: 'organizationalUnitName', value: teamId },
    ],
    issuer: wwdrName,
    publicPem: signer!.pub,
    signerKeyPem: wwdr!.priv,
    serial: '03',
    ca: false,
  });
  return {
    caPem: forge.pki.certificateToPem(caCert),
    wwdrPem: forge.pki.certificateToPem(wwdrCert),
    certificatePem: forge.pki.certificateToPem(signerCert),
    keyPem: signer!.priv,
    otherKeyPem: other!.priv,
    passTypeId,
    teamId,
  };
}

export function makeGoogleKey(): { privatePem: string; publicPem: string } {
  const k = rsa();
  return {
    privatePem: k.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicPem: k.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

/** The files of a zip archive, read from its central directory (stored or deflated entries). */
export function unzip(zip: Buffer): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  let eocd = zip.length - 22;
  while (eocd >= 0 && zip.readUInt32LE(eocd) !== 0x06054b50) eocd--;
  if (eocd < 0) throw new Error('not a zip archive');
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error('bad central directory');
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    const dataAt = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(dataAt, dataAt + compressed);
    files.set(name, method === 8 ? inflateRawSync(data) : Buffer.from(data));
    at += 46 + nameLength + extraLength + commentLength;
  }
  return files;
}

export const sha1 = (b: Buffer) => createHash('sha1').update(b).digest('hex');

/**
 * Verifies a detached PKCS#7 signature over `content` against the root CA: the embedded chain
 * (signer ← intermediate ← root), the signed message digest, and the signer's RSA signature
 * over the DER of the signed attributes. Answers the signer certificate's subject UID.
 */
export function verifyDetachedSignature(
  signature: Buffer,
  content: Buffer,
  caPem: string,
): { uid: string; signingTime: Date | null } {
  const msg = forge.pkcs7.messageFromAsn1(forge.asn1.fromDer(signature.toString('binary'))) as forge.pkcs7.PkcsSignedData & {
    rawCapture: { signerInfos: forge.asn1.Asn1[] };
  };
  const certs = msg.certificates;
  const signer = certs.find(
    (c) => !c.extensions.some((e: { name: string; cA?: boolean }) => e.name === 'basicConstraints' && e.cA),
  );
  const intermediates = certs.filter((c) => c !== signer);
  if (!signer) throw new Error('no signer certificate');
  const store = forge.pki.createCaStore([forge.pki.certificateFromPem(caPem)]);
  let chained: boolean;
  try {
    chained = forge.pki.verifyCertificateChain(store, [signer, ...intermediates]);
  } catch {
    chained = false;
  }
  if (!chained) throw new Error('chain does not verify');

  const info = msg.rawCapture.signerInfos[0]!.value as forge.asn1.Asn1[];
  const attrs = info.find((n) => n.tagClass === forge.asn1.Class.CONTEXT_SPECIFIC && n.type === 0)!;
  const encrypted = info.find((n) => n.tagClass === forge.asn1.Class.UNIVERSAL && n.type === forge.asn1.Type.OCTETSTRING)!;
  let digest: string | null = null;
  let signingTime: Date | null = null;
  for (const attr of attrs.value as forge.asn1.Asn1[]) {
    const [oid, set] = attr.value as forge.asn1.Asn1[];
    const type = forge.asn1.derToOid(oid!.value as string);
    const value = (set!.value as forge.asn1.Asn1[])[0]!;
    if (type === forge.pki.oids.messageDigest) digest = forge.util.bytesToHex(value.value as string);
    if (type === forge.pki.oids.signingTime) signingTime = forge.asn1.utcTimeToDate(value.value as string);
  }
  if (digest !== sha1(content)) throw new Error('message digest does not match the content');
  // the signature covers the attributes encoded as a SET OF, not with their [0] tag
  const set = forge.asn1.create(forge.asn1.Class.UNIVERSAL, forge.asn1.Type.SET, true, attrs.value as forge.asn1.Asn1[]);
  const md = forge.md.sha1.create();
  md.update(forge.asn1.toDer(set).getBytes());
  const ok = (signer.publicKey as forge.pki.rsa.PublicKey).verify(md.digest().bytes(), encrypted.value as string);
  if (!ok) throw new Error('signature does not verify');
  const uid = signer.subject.getField({ type: '0.9.2342.19200300.100.1.1' }) as { value: string } | null;
  return { uid: uid?.value ?? '', signingTime };
}
