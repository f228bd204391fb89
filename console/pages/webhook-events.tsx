import type { RouteResponse } from '../../lib/api/routes';
import { post } from '../api';
import { created, ListPage, time } from '../list';

// #/webhook-events: the webhook events and their attempts; redeliver one that is not pending.

type WebhookEvent = RouteResponse<'getWebhookEvent'>;

export const WebhookEventsPage = () => (
  <ListPage<WebhookEvent>
    route="/webhook-events"
    label="Webhook events"
    filters={[
      { name: 'status', label: 'Status', options: ['pending', 'delivered', 'failed'] },
      { name: 'type', label: 'Type' },
      { name: 'resourceId', label: 'Resource id' },
    ]}
    columns={[
      { label: 'Status', cell: (e) => <span class={`state ${e.status}`}>{e.status}</span> },
      { label: 'Type', cell: (e) => e.type },
      { label: 'Attempts', cell: (e) => <Attempts event={e} />, numeric: true },
      created,
      { label: 'Id', cell: (e) => <code>{e.id}</code> },
    ]}
    actions={(e) =>
      e.status === 'pending'
        ? []
        : [{ label: 'Redeliver', what: `Send ${e.type} again, with the same id, as one more attempt.`, run: () => post(`/webhook-events/${e.id}/redeliver`) }]
    }
  />
);

function Attempts({ event }: { event: WebhookEvent }) {
  return (
    <details class="attempts">
      <summary data-count={event.attempts.length}>{event.attempts.length}</summary>
      <ol>
        {event.attempts.map((a) => (
          <li key={a.at}>
            {time(a.at)} · {a.status ?? a.error} · {a.ms} ms
          </li>
        ))}
      </ol>
    </details>
  );
}
