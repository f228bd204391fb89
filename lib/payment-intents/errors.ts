import { errorCatalog } from '../shared/errors';

export const intentErrors = errorCatalog({
  notFound: {
    code: 'payment_intent_not_found',
    status: 404,
    title: 'No payment intent with this id',
    detail: (id: string) => `No payment intent with id ${id}`,
  },
  assetMismatch: {
    code: 'asset_mismatch',
    status: 422,
    title: 'An amount in another asset than the one it must be in',
    detail: (field: string, given: string, scale: number, expected: string, expectedScale: number) =>
      `${field} is in ${given} at scale ${scale}, but must be in ${expected} at scale ${expectedScale}`,
  },
});
