// The Admin API's routes of the tag Webhook events, each declared once (./route.ts says what a declaration holds).
import { commonErrors } from '../../shared/errors';
import { webhookErrors } from '../../webhooks/errors';
import { eventIdParams, listQuery, webhookEvent } from '../../webhooks/schemas';
import { ADMIN_API_SECRETS } from './roles';
import { declareRoutes, type FunctionRoles, page } from './route';

export const webhookEventPage = page(webhookEvent);

export const webhookEventsRoutes = declareRoutes({
  listWebhookEvents: {
    tag: 'Webhook events',
    method: 'get',
    path: '/webhook-events',
    summary: 'List webhook events, newest first',
    description: 'All, or by delivery status, type and resource.',
    query: listQuery,
    status: 200,
    response: webhookEventPage,
    functionName: 'webhookEventsList',
    handler: 'webhook-events/list',
    role: 'WebhookEventsListRole',
    operation: { domain: 'webhooks', name: 'listWebhookEvents' },
  },
  getWebhookEvent: {
    tag: 'Webhook events',
    method: 'get',
    path: '/webhook-events/{id}',
    summary: 'Get a webhook event',
    description: 'With every delivery attempt.',
    params: eventIdParams,
    status: 200,
    response: webhookEvent,
    problems: [webhookErrors.notFound],
    functionName: 'webhookEventsGet',
    handler: 'webhook-events/get',
    role: 'WebhookEventsGetRole',
    operation: { domain: 'webhooks', name: 'getWebhookEvent' },
  },
  redeliverWebhookEvent: {
    tag: 'Webhook events',
    method: 'post',
    path: '/webhook-events/{id}/redeliver',
    summary: 'Send an event again',
    description:
      'A delivered or failed event, with the same id, on a fresh retry schedule; or a pending one whose next attempt ' +
      '(`nextAttemptAt`) is overdue by more than 15 minutes, when no scheduled attempt of it can still run (that attempt ' +
      'is recorded as skipped). Any other pending event is 409 `invalid_state`.',
    params: eventIdParams,
    status: 202,
    response: webhookEvent,
    problems: [webhookErrors.notFound, commonErrors.invalidState],
    transactional: true,
    rowAction: true,
    functionName: 'webhookEventsRedeliver',
    handler: 'webhook-events/redeliver',
    role: 'WebhookEventsRedeliverRole',
    operation: { domain: 'webhooks', name: 'redeliverWebhookEvent' },
  },
});

// The roles of these routes' own functions (those they share are in ./roles.ts).
export const webhookEventsRoles = {
  // by type or resource: a page of the ByLookup or ByResource index, then its records at once
  WebhookEventsListRole: {
    MainTable: ['GetItem', 'BatchGetItem', 'Query'], // the tenant of the request (the list helpers could reach it too)
    WebhookEventsTable: ['BatchGetItem', 'Query'],
    'WebhookEventsTable/index': ['Query'],
    secrets: ADMIN_API_SECRETS,
  },
  WebhookEventsGetRole: {
    MainTable: ['GetItem'], // the tenant of the request
    WebhookEventsTable: ['GetItem'],
    secrets: ADMIN_API_SECRETS,
  },
  // the record put back to pending, with its next attempt's message (an outbox item)
  WebhookEventsRedeliverRole: {
    WebhookEventsTable: ['GetItem', 'UpdateItem'],
    MainTable: ['GetItem', 'PutItem'],
    IdempotencyTable: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    secrets: ADMIN_API_SECRETS,
  },
} satisfies FunctionRoles;
