// A job thread's entry: the sources are TypeScript run through tsx, registered per thread.
import { register } from 'tsx/esm/api';

register();
await import('./job-thread-main.ts');
