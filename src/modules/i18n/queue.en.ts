/** The buyer's words for the on-sale queue page. */
export const queueEn = {
  queueTitle: (event: string) => `In the queue for ${event}`,
  waitingRoom: (when: string) => `The sale opens at ${when}.`,
  waitingRoomHint:
    'You are in the waiting room. At the opening, everyone here gets a random place in the queue: coming earlier or refreshing does not move you forward.',
  opensIn: 'Opens in',
  yourPlace: 'Your place in the queue',
  aheadOfYou: (n: string) => `${n} ahead of you`,
  aboutWait: (time: string) => `About ${time} to wait`,
  queueHint: 'Keep this page open: it updates itself, and takes you to the tickets when it is your turn.',
  queueUpdated: 'Updated just now',
  totalWithCode: (amount: string) => `(${amount} off with your code)`,
  passNeeded: 'The sale runs through a queue: join it on the event page, and buy when it is your turn.',
  minutes: (n: number) => (n === 1 ? '1 minute' : `${n} minutes`),
  seconds: (n: number) => (n === 1 ? '1 second' : `${n} seconds`),
};

export type QueueMessages = typeof queueEn;
