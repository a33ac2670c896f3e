import { describe, expect, it } from 'vitest';
import { ACCOUNT_PATH, landingPath, OVERVIEW_PATH, REVIEW_QUEUE_PATH } from './landing';

describe('landingPath', () => {
  const cases = [
    { description: 'an admin lands on the review queue (issue 11 point 8)', roles: ['CUSTOMER', 'ADMIN'] as const, want: REVIEW_QUEUE_PATH },
    { description: 'an admin who also provides GPUs still starts with the queue', roles: ['ADMIN', 'PROVIDER'] as const, want: REVIEW_QUEUE_PATH },
    { description: 'a provider lands on their Overview', roles: ['CUSTOMER', 'PROVIDER'] as const, want: OVERVIEW_PATH },
    { description: 'anyone else on their account', roles: ['CUSTOMER'] as const, want: ACCOUNT_PATH },
  ];
  for (const c of cases) it(c.description, () => expect(landingPath(c.roles)).toBe(c.want));
});
