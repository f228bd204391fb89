import { errorCatalog } from '../shared/errors';

export const assetErrors = errorCatalog({
  exists: { code: 'asset_exists', status: 409, title: 'An asset with this code exists', detail: (code: string) => `An asset with code ${code} already exists` },
  notFound: { code: 'asset_not_found', status: 404, title: 'No asset with this id', detail: (id: string) => `No asset with id ${id}` },
  changed: {
    code: 'asset_changed',
    status: 409,
    title: 'Other requests kept changing the asset; read it again and retry',
    detail: (id: string) => `Asset ${id} was changed by other requests meanwhile; read it again and retry`,
  },
  // An asset named in a body (not the path).
  unknown: {
    code: 'unknown_asset',
    status: 422,
    title: 'No asset with this code',
    detail: (code: string) => `No asset with code ${code}; create it with POST /assets first`,
  },
});
