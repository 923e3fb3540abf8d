/**
 * The console's webhooks pages in English (owners): the endpoints with their forms, a secret shown
 * once, one endpoint's delivery log, and the webhooks service's refusals in plain words.
 */
export const consoleWebhooksEn = {
  whEvents: 'Events',
  whNoneTicked: 'None ticked: every event.',
  whSecretFor: (url: string) => `Signing secret for ${url}`,
  whSecretOnce: 'Copy it now: it is shown this once only. Verify deliveries with any Standard Webhooks library.',
  whEnabled: 'enabled',
  whDisabled: 'disabled',
  whDisabledBecause: (reason: string) => `disabled: ${reason}`,
  whEveryEvent: 'every event',
  whEdit: 'Edit',
  whDeliveryLog: 'Delivery log',
  whUrl: 'URL',
  whDescription: 'Description',
  whEnabledBox: 'Enabled',
  whSave: 'Save',
  whSendTest: 'Send a test event',
  whRotate: 'Rotate the secret',
  whDelete: 'Delete',
  whAddTitle: 'Add an endpoint',
  whUrlHint: 'https:// address that receives POSTed JSON events.',
  whAddButton: 'Add the endpoint',
  // the delivery log
  whAllEndpoints: 'All endpoints',
  whSendFailedAgain: 'Send failed deliveries again',
  whFailedSince: 'Failed since (UTC)',
  whRedeliver: 'Redeliver',
  whRedeliverOne: (id: string) => `Redeliver ${id}`,
  whDeliveries: 'Deliveries',
  whEvent: 'Event',
  whAttempts: 'Attempts',
  whNext: (at: string) => `next ${at}`,
  whNoAnswer: 'no answer',
  whOlder: 'Older deliveries',
  whDeliveriesTo: (url: string) => `Deliveries to ${url}`,
  whStatusPending: 'pending',
  whStatusSucceeded: 'succeeded',
  whStatusFailed: 'failed',
  // after a form
  whAdded: 'The endpoint was added.',
  whNotSaved: (problems: string) => `Not saved: ${problems}`,
  whRotated: 'A new secret signs from now on; the old one also signs for 24 hours.',
  whGiveMoment: 'Give a date and time.',
  whRedelivering: (count: string) => `${count} failed deliveries will be sent again.`,
  // the webhooks service's refusals (plain-words.ts)
  whPwNotUrl: 'Is not a URL.',
  whPwHttp: 'Must be an http or https URL.',
  whPwNoUser: 'Must not carry a user name or password.',
  whPwTooLong: 'Is longer than 2,000 characters.',
  whPwUnknownType: 'Unknown event type.',
};

export type ConsoleWebhooks = typeof consoleWebhooksEn;
