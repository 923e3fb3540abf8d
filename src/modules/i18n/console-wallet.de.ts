import type { ConsoleWallet } from './console-wallet.en.ts';

/** Die Wallet-Seite der Konsole auf Deutsch. */
export const consoleWalletDe: ConsoleWallet = {
  navWallet: 'Wallet-Pässe',
  walletTitle: 'Wallet-Pässe',
  walletIntro:
    'Mit Schlüsseln hier bietet die Bestellseite jedes gültige Ticket als Apple-Wallet-Pass und als Google-Wallet-Link an, jeweils mit dem QR-Code des Tickets. Die Schlüssel werden verschlüsselt gespeichert und nie wieder angezeigt oder exportiert.',
  walletAppleHeading: 'Für Apple Wallet',
  walletGoogleHeading: 'Für Google Wallet',
  walletConfigured: (uploaded) => `Eingerichtet, hochgeladen am ${uploaded}.`,
  walletNotConfigured: 'Nicht eingerichtet.',
  walletPassTypeId: 'Pass-Type-ID',
  walletPassTypeIdHint: 'Wie in Ihrem Apple-Entwicklerkonto, z. B. pass.com.example.tickets.',
  walletTeamId: 'Team-ID',
  walletCertificate: 'Pass-Type-ID-Zertifikat (PEM)',
  walletKey: 'Privater Schlüssel dieses Zertifikats (PEM, unverschlüsselt)',
  walletWwdr: 'Apple-WWDR-Zwischenzertifikat (PEM)',
  walletIssuerId: 'Aussteller-ID',
  walletServiceAccountEmail: 'E-Mail-Adresse des Dienstkontos',
  walletServiceAccountEmailHint: 'Leer gelassen, wird sie aus einer eingefügten JSON-Schlüsseldatei übernommen.',
  walletGoogleKey: 'Privater Schlüssel des Dienstkontos (PEM oder die ganze JSON-Schlüsseldatei)',
  walletUploadApple: 'Apple-Schlüssel speichern',
  walletReplaceApple: 'Apple-Schlüssel ersetzen',
  walletUploadGoogle: 'Google-Schlüssel speichern',
  walletReplaceGoogle: 'Google-Schlüssel ersetzen',
  walletRemoveApple: 'Apple-Schlüssel entfernen',
  walletRemoveGoogle: 'Google-Schlüssel entfernen',
  walletSaved: 'Die Schlüssel wurden geprüft und gespeichert.',
  walletRemoved: 'Die Schlüssel wurden entfernt.',
  walletRefused: 'Nicht gespeichert: Bitte prüfen Sie die markierten Felder.',
  walletUpdatesNote:
    'Ein Pass, der schon in einer Wallet liegt, ändert sich nicht, wenn sein Ticket später ungültig wird (dafür bräuchte es Apples Push-Dienst oder Googles API); ein danach geladener Pass zeigt UNGÜLTIG.',
  walletProblems: {
    missing: 'Pflichtfeld.',
    not_a_certificate: 'Das ist kein PEM-Zertifikat.',
    not_a_private_key: 'Das ist kein privater PEM-Schlüssel (ein verschlüsselter Schlüssel geht nicht).',
    key_does_not_match: 'Dieser Schlüssel gehört nicht zum Zertifikat.',
    not_rsa: 'Google-Links werden mit RS256 signiert: Es muss ein RSA-Schlüssel sein.',
    pass_type_id_mismatch: 'Das Zertifikat wurde für eine andere Pass Type ID ausgestellt.',
    invalid_format: 'Das sieht nicht richtig aus.',
  },
};
