import { errorCatalog } from '../shared/errors';

export const quoteErrors = errorCatalog({
  notFound: { code: 'quote_not_found', status: 404, title: 'No quote with this id', detail: (id: string) => `No quote with id ${id}` },
  // A quote named in a body (not the path).
  unknown: { code: 'quote_not_found', status: 422, title: 'No quote with this id', detail: (id: string, where = '') => `No quote ${id}${where}` },
  walletMismatch: {
    code: 'quote_wallet_mismatch',
    status: 422,
    title: 'The quote was made for another wallet address',
    detail: (id: string, made: string, given: string) => `Quote ${id} was made for ${made}, not ${given}`,
  },
  used: { code: 'quote_used', status: 409, title: 'The quote was used by another payment', detail: (id: string) => `Quote ${id} was already used` },
  expired: {
    code: 'quote_expired',
    status: 422,
    title: 'The quote expired; quote again',
    detail: (what: string, expiresAt: string, then: string) => `${what} expired at ${expiresAt}; ${then}`,
  },
  amountRequired: {
    code: 'amount_required',
    status: 422,
    title: 'The incoming payment has no amount: give debitAmount or receiveAmount',
    detail: () => 'The incoming payment has no incomingAmount: give debitAmount or receiveAmount',
  },
  amountTooSmall: {
    code: 'amount_too_small',
    status: 422,
    title: 'The quote would deliver nothing',
    detail: () => 'The quote would deliver nothing at this rate and scale',
  },
  amountExceedsRemaining: {
    code: 'amount_exceeds_remaining',
    status: 422,
    title: 'More than the incoming payment can still receive',
    detail: (remaining: string, scale: number) => `The incoming payment can receive at most ${remaining} (scale ${scale}) more`,
  },
});
