/** What the test app puts on `window`, for the test to start it and read what happened. */
import type { RequestRecord } from './recording-fetch.ts';

export interface AppConfig {
  url: string;
  apiKey: string | undefined;
  message: string;
  privateKey: string;
  publicKey: string;
}

export interface PageGlobals {
  startApp(config: AppConfig): void;
  /** Every request the app's client sent, in order, with how it ended. */
  requests: RequestRecord[];
  /** What the run started just before its component unmounted resolves to. */
  leftBehind?: Promise<unknown>;
}
