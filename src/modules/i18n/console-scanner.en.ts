/**
 * The door scanner's live words in English: what scanner.js says while it runs (the page's fixed
 * words are in console-door). They reach the browser as JSON, so they are strings, with `{name}`
 * where scanner.js puts a value in; scanner.js reads each by its key without the `sw` prefix
 * (`swReady` is `ready`) and keeps these English words as its defaults.
 */
export const consoleScannerEn = {
  swOnline: 'Online',
  swSynced: ' · synced {time}',
  swOffline: 'Offline',
  swLastSync: ' · last sync {time}',
  swSignedOut: 'Signed out',
  swConnecting: 'Connecting…',
  swSignedOutNotice: 'You were signed out. Scanning goes on; {count} scans wait on this device until you sign in again.',
  swSignIn: 'Sign in',
  swNoConnection: 'No connection: scanning goes on with the list on this device; scans upload when the connection returns.',
  swReady: 'Ready: {count} valid tickets on this device.',
  swNoScans: 'No scans on this device yet.',
  swAdmitted: 'Admitted {label}',
  swRefusedLine: 'Refused {label}',
  swSeveral: 'Several tickets',
  swOrderRef: 'Order {ref}',
  swTypeOne: 'Type one ticket: {refs}',
  swSeveralShort: 'several tickets',
  swOrderCode: 'Order code',
  swOrderCodeDetail: "This code is for a whole order: scan each ticket's own code, or type its reference.",
  swAnOrderCode: 'an order code',
  swUnknownCode: 'unknown code',
  swUnknown: 'Unknown ticket',
  swNotOnList: 'Not a ticket on this list.',
  swNotDownloaded: 'The list is not on this device yet: connect once to download it.',
  swUnknownShort: 'unknown',
  swNotValid: 'Not valid: the ticket is void or its order is not paid.',
  swAlready: 'Already checked in at {time}.',
  swValid: 'Valid',
  swRefused: 'Refused',
  swNotAtServer: 'not on the list at the server',
  swConflictAdmitted: 'conflict: already admitted at {time} on another device',
  swConflictInvalid: 'conflict: no longer valid at the server',
  swUploaded: 'uploaded',
  swServerAnswered: 'The server answered {error}; trying again in a few seconds.',
  swDownloading: 'Downloading the ticket list… {count}',
  swNoCamera: 'This browser gives no camera to this page (it needs HTTPS). Type references instead.',
  swCameraUnavailable: 'The camera is not available ({error}). Type references instead.',
  swNotRecorded: 'Could not record the scan: {error}',
  swNeedsHttps: 'This page needs HTTPS to keep the list on the device and use the camera.',
  swCouldNotStart: 'The scanner could not start: {error}',
};

export type ConsoleScanner = typeof consoleScannerEn;
