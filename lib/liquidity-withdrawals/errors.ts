import { errorCatalog } from '../shared/errors';

export const withdrawalErrors = errorCatalog({
  notFound: {
    code: 'liquidity_withdrawal_not_found',
    status: 404,
    title: 'No liquidity withdrawal with this id',
    detail: (id: string) => `No liquidity withdrawal with id ${id}`,
  },
});
