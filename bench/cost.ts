// A modelled AWS bill per million operations, from what the bench counted per operation. List
// prices of us-east-1 (docs/performance.md names them and the assumptions, and what is left out).
export const PRICES = {
  lambdaGbSecond: 0.0000133334, // arm64, as serverless.yml deploys
  lambdaRequest: 0.2 / 1e6,
  dynamoWru: 0.625 / 1e6, // on-demand
  dynamoRru: 0.125 / 1e6,
  sqsRequest: 0.4 / 1e6, // standard queues
  eventBridgeEvent: 1 / 1e6, // custom events put
  apiRequest: 3.5 / 1e6, // REST APIs (the Admin API is one)
};
export const ASSUMED = {
  memoryGb: 1, // serverless.yml's memorySize
  cpuScale: 1769 / 1024, // Lambda gives a full vCPU at 1,769 MB: at 1,024 MB, CPU time stretches so
  awsCallMs: 6, // a DynamoDB, SQS or EventBridge call's wait in-region
  webhookMs: 30, // the FSP's answer to a webhook
};

export interface Work {
  api: number; // API Gateway requests
  invocations: Record<string, number>; // by function
  cpuMs: number; // the functions' CPU, all of them
  awsCalls: number; // the functions' AWS calls
  wcu: number;
  rcu: number;
  sqsCalls: number; // the functions' own SQS requests (a batch is one)
  sqsBatches: number; // batches Lambda took from a queue for a function: a receive and a delete each
  events: number; // EventBridge entries put
}

// Dollars per million operations, by item, with the total.
export function costPerMillion(w: Work, webhookFunction = 'webhooksDeliver'): Record<string, number> {
  const invocations = Object.values(w.invocations).reduce((a, b) => a + b, 0);
  const seconds = (w.cpuMs * ASSUMED.cpuScale + w.awsCalls * ASSUMED.awsCallMs + (w.invocations[webhookFunction] ?? 0) * ASSUMED.webhookMs) / 1000;
  const items = {
    lambda: seconds * ASSUMED.memoryGb * PRICES.lambdaGbSecond + invocations * PRICES.lambdaRequest,
    dynamodb: w.wcu * PRICES.dynamoWru + w.rcu * PRICES.dynamoRru,
    // the functions' own requests; each event's delivery to its queue (a rule's SQS target); a
    // receive and a delete for each batch Lambda hands a function
    sqs: (w.sqsCalls + w.events + 2 * w.sqsBatches) * PRICES.sqsRequest,
    eventbridge: w.events * PRICES.eventBridgeEvent,
    apigateway: w.api * PRICES.apiRequest,
  };
  const million = Object.fromEntries(Object.entries(items).map(([k, v]) => [k, v * 1e6]));
  return { ...million, total: Object.values(million).reduce((a, b) => a + b, 0) };
}
