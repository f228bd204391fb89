import { errorCatalog } from '../shared/errors';

export const webhookErrors = errorCatalog({
  notFound: { code: 'webhook_event_not_found', status: 404, title: 'No webhook event with this id', detail: (id: string) => `No webhook event ${id}` },
});
