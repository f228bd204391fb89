import { errorCatalog } from '../shared/errors';

export const rateErrors = errorCatalog({
  unavailable: { code: 'rate_unavailable', status: 422, title: 'No rate for this pair: none pushed, or the pull failed', detail: (why: string) => why },
});
