import type { RouteResponse } from '../../lib/api/routes';
import { post } from '../api';
import { created, ListPage, time } from '../list';
import type { PageProps } from '../pages';
import { RecordPage } from '../record';

// #/webhook-events: the webhook events and their attempts; redeliver one that is not pending.

type WebhookEvent = RouteResponse<'getWebhookEvent'>;

// #/webhook-events; #/webhook-events/for/<id>: one record's events; #/webhook-events/<id>: one event.
export const WebhookEventsPage = ({ args }: PageProps) =>
  args[0] === 'for' ? (
    <WebhookEventsList query={{ resourceId: args[1] ?? '' }} />
  ) : args[0] ? (
    <RecordPage route={`/webhook-events/${args[0]}`} label="Webhook event" back={{ href: '#/webhook-events', text: 'All webhook events' }} />
  ) : (
    <WebhookEventsList />
  );

const WebhookEventsList = ({ query }: { query?: Record<string, string> }) => (
  <ListPage<WebhookEvent>
    key={JSON.stringify(query)}
    route="/webhook-events"
    query={query}
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
      {
        label: 'Id',
        cell: (e) => (
          <a href={`#/webhook-events/${e.id}`}>
            <code>{e.id}</code>
          </a>
        ),
      },
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
