import * as z from 'zod';

// Every setting the Lambda functions read, validated once at cold start. A bad or missing value
// fails here with the variable's name, not later inside a request.
const url = z.url({ protocol: /^https?$/ }).transform((u) => u.replace(/\/+$/, ''));

const optionalUrl = z.preprocess((v) => (v === '' ? undefined : v), url.optional());
const seconds = (fallback: number) => z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().positive().default(fallback));

const schema = z.object({
  MAIN_TABLE: z.string().min(1),
  RATES_TABLE: z.string().min(1),
  IDEMPOTENCY_TABLE: z.string().min(1),
  EVENT_BUS_NAME: z.string().min(1),
  PAYMENTS_QUEUE_URL: url,
  ADMIN_API_SECRET: z.string().min(16, 'must be at least 16 characters'),
  WALLET_ADDRESS_URL: url,
  AUTH_SERVER_URL: url,
  EXCHANGE_RATES_URL: optionalUrl,
  EXCHANGE_RATES_LIFETIME_SECS: seconds(3600),
  EXCHANGE_RATES_TIMEOUT_SECS: seconds(10),
  EXCHANGE_RATES_REFRESH_BEFORE_SECS: seconds(120),
  QUOTE_LIFETIME_SECS: seconds(300),
});

export type Config = z.infer<typeof schema>;

export function readConfig(env: NodeJS.ProcessEnv): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  return parsed.data;
}

export const config = readConfig(process.env);
