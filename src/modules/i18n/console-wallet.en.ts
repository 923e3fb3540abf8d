/** The console's wallet passes page in English: an account's Apple and Google wallet keys (contract section 15). */
export const consoleWalletEn = {
  navWallet: 'Wallet passes',
  walletTitle: 'Wallet passes',
  walletIntro:
    'With keys here, the order page offers every valid ticket as an Apple Wallet pass and a Google Wallet save link, each with the ticket’s QR code. Keys are stored encrypted and never shown again, nor exported.',
  walletAppleHeading: 'Apple Wallet',
  walletGoogleHeading: 'Google Wallet',
  walletConfigured: (uploaded: string) => `Configured, uploaded ${uploaded}.`,
  walletNotConfigured: 'Not configured.',
  walletPassTypeId: 'Pass Type ID',
  walletPassTypeIdHint: 'As in your Apple developer account, e.g. pass.com.example.tickets.',
  walletTeamId: 'Team ID',
  walletCertificate: 'Pass Type ID certificate (PEM)',
  walletKey: 'Private key of that certificate (PEM, unencrypted)',
  walletWwdr: 'Apple WWDR intermediate certificate (PEM)',
  walletIssuerId: 'Issuer ID',
  walletServiceAccountEmail: 'Service account email',
  walletServiceAccountEmailHint: 'Left empty, it is taken from a pasted service-account JSON file.',
  walletGoogleKey: 'Service account private key (PEM, or the whole JSON key file)',
  walletUploadApple: 'Save Apple keys',
  walletReplaceApple: 'Replace Apple keys',
  walletUploadGoogle: 'Save Google key',
  walletReplaceGoogle: 'Replace Google key',
  walletRemoveApple: 'Remove Apple keys',
  walletRemoveGoogle: 'Remove Google key',
  walletSaved: 'The keys were checked and saved.',
  walletRemoved: 'The keys were removed.',
  walletRefused: 'Not saved: please check the marked fields.',
  walletUpdatesNote:
    'A pass already in a wallet is not updated when its ticket is voided later (that would need Apple’s push service or Google’s API); a pass downloaded after the void says VOID.',
  walletProblems: {
    missing: 'Required.',
    not_a_certificate: 'This is not a PEM certificate.',
    not_a_private_key: 'This is not a PEM private key (an encrypted key cannot be used).',
    key_does_not_match: 'This key does not belong to the certificate.',
    not_rsa: 'Google signs save links with RS256: this must be an RSA key.',
    pass_type_id_mismatch: 'The certificate was issued for another Pass Type ID.',
    invalid_format: 'This does not look right.',
  } as Record<string, string>,
};

export type ConsoleWallet = typeof consoleWalletEn;
