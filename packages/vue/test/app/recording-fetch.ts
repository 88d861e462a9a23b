/** The browser's own fetch, with a record of how each request ended, for the test to read. */
import type { FetchLike } from '@crypto-service/client';

export interface RequestRecord {
  path: string;
  outcome: 'pending' | 'response' | 'aborted' | 'failed';
}

export function recordingFetch(records: RequestRecord[]): FetchLike {
  return (url, init) => {
    const record: RequestRecord = { path: new URL(url).pathname, outcome: 'pending' };
    records.push(record);
    return fetch(url, init).then(
      (response) => {
        record.outcome = 'response';
        return response;
      },
      (error: unknown) => {
        record.outcome = init.signal?.aborted === true ? 'aborted' : 'failed';
        throw error;
      },
    );
  };
}
