// Each queue's maxReceiveCount (infra/resources.yml): on a message's last receive, the consumer
// puts its work in a final state instead of leaving it to the dead-letter queue. A test keeps
// these equal to the template's.
export const PAYMENTS_MAX_RECEIVES = 8;
export const WEBHOOK_MAX_RECEIVES = 5;
