import { errorCatalog } from '../shared/errors';

export const auditErrors = errorCatalog({
  storeUnavailable: {
    code: 'audit_store_unavailable',
    status: 503,
    title: 'The audit store did not answer; retry shortly',
    detail: () => 'The write-once audit store could not be read; retry shortly',
  },
});
