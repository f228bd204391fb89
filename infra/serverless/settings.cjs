'use strict';

// Every setting a deploy reads, with the check its value must pass: the `${env:…}` of serverless.yml
// and infra/resources.yml, and what the plugins here read (through `setting`, which knows no other).
// deploy-checks.cjs runs them all before anything is built and fails on a setting read without a
// check here, so that no value reaches the template unchecked: "abc" as a throttle, -5 ms as an
// alarm's threshold, "garbage" as every alarm's topic. The functions' own settings are checked by
// their schema (lib/platform/config-schema.ts), as they will read them; those are listed as `functions`.
const net = require('node:net');

// Each check answers what is wrong with a value that is set, or nothing. `ctx` holds the region.
const whole = (min, max) => (v) => (/^-?\d+$/.test(v) && Number(v) >= min && Number(v) <= max ? undefined : `must be a whole number from ${min} to ${max}`);
const oneOf =
  (...values) =>
  (v) =>
    values.includes(v) ? undefined : `must be one of ${values.join(', ')}`;
const flag = (v) => (v === '1' ? undefined : 'must be 1 (or unset)');
const bool = oneOf('true', 'false');
const email = (v) => (/^[^\s@,;<>]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/.test(v) ? undefined : 'must be an e-mail address, e.g. ops@fsp.example.com');
const HOST = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const hostname = (v) => (HOST.test(v) ? undefined : 'must be a domain name in lower case, e.g. admin.wallet.example.com');

// An ARN of `service` whose resource part matches `resource`; `region`: 'same' (the stack's, as
// the service needs), 'other' (a cross-region copy) or 'any'.
const ARN = /^arn:(aws|aws-cn|aws-us-gov):([a-z0-9-]+):([a-z0-9-]*):(\d{12}|):(.+)$/;
const arn = (service, resource, region, example) => (v, ctx) => {
  const m = ARN.exec(v);
  if (!m || m[2] !== service || !resource.test(m[5]) || !/^\d{12}$/.test(m[4]) || !m[3]) return `must be the ARN of ${example}`;
  if (region === 'same' && m[3] !== ctx.region) return `must be in the stack's region, ${ctx.region} (not ${m[3]})`;
  if (region === 'other' && m[3] === ctx.region) return `must be in another region than the stack's (${ctx.region}): it is the copy kept apart`;
  return undefined;
};

// An IAM role's ARN (IAM is global: no region), path included.
const ROLE_ARN = /^arn:(aws|aws-cn|aws-us-gov):iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/;
const roleArn = (v) => (ROLE_ARN.test(v) ? undefined : 'must be the ARN of an IAM role, arn:aws:iam::<account>:role/<name>');
const roleArns = (v) => {
  const bad = v
    .split(',')
    .map((r) => r.trim())
    .filter((r) => r && roleArn(r));
  return bad.length ? `${bad.join(', ')}: each must be the ARN of an IAM role, arn:aws:iam::<account>:role/<name>` : undefined;
};

// CIDRs, parsed: an IPv4 or IPv6 address (node's own parser) and a prefix that fits it, with no
// bits set below the prefix (203.0.113.7/24 is refused: did you mean 203.0.113.0/24?).
function parseCidr(text) {
  const m = /^([^/]+)\/(\d{1,3})$/.exec(text);
  const family = m && !m[1].includes('%') ? net.isIP(m[1]) : 0;
  if (!family) return { error: `${text} is not a CIDR (an IPv4 or IPv6 address, /, a prefix length)` };
  const bits = family === 4 ? 32 : 128;
  const prefix = Number(m[2]);
  if (prefix > bits) return { error: `${text}: an IPv${family} prefix is at most /${bits}` };
  const value = family === 4 ? m[1].split('.').reduce((n, part) => (n << 8n) | BigInt(part), 0n) : ipv6Value(m[1]);
  const hostBits = (1n << BigInt(bits - prefix)) - 1n;
  if (value & hostBits) return { error: `${text} has bits set below its prefix (did you mean ${format(value & ~hostBits, family)}/${prefix}?)` };
  return { cidr: `${m[1]}/${prefix}`, family, prefix };
}
function ipv6Value(address) {
  // The last 32 bits may be written as IPv4 (::ffff:192.0.2.1).
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  const text = v4
    ? address.replace(v4[1], (v) => v.split('.').reduce((h, p, i) => h + (i === 2 ? ':' : '') + Number(p).toString(16).padStart(2, '0'), ''))
    : address;
  const [head, tail] = text.split('::');
  const groups = (s) => (s ? s.split(':') : []);
  const all = tail === undefined ? groups(head) : [...groups(head), ...Array(8 - groups(head).length - groups(tail).length).fill('0'), ...groups(tail)];
  return all.reduce((n, g) => (n << 16n) | BigInt(`0x${g || '0'}`), 0n);
}
function format(value, family) {
  if (family === 4) return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 255n)).join('.');
  const full = Array.from({ length: 8 }, (_, i) => ((value >> BigInt(112 - 16 * i)) & 0xffffn).toString(16)).join(':');
  return full.replace(/(^|:)0(:0)+(:|$)/, '::');
}
// A comma-separated list of CIDRs: what is wrong with it, and the parsed list.
function cidrList(value) {
  const parsed = (value ?? '')
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean)
    .map(parseCidr);
  return { cidrs: parsed.filter((p) => p.cidr), errors: parsed.filter((p) => p.error).map((p) => p.error) };
}
const cidrs = (v) => {
  const { cidrs: list, errors } = cidrList(v);
  return errors.length ? errors.join('; ') : list.length ? undefined : 'must list at least one CIDR (comma-separated)';
};
const everywhere = (c) => c.prefix === 0; // 0.0.0.0/0, ::/0

// CloudWatch Logs takes only these retention periods (days).
const RETENTION_DAYS = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653];

// CodeDeploy's predefined configurations for Lambda.
const TRAFFIC_SHIFTS = [
  'Canary10Percent5Minutes',
  'Canary10Percent10Minutes',
  'Canary10Percent15Minutes',
  'Canary10Percent30Minutes',
  'Linear10PercentEvery1Minute',
  'Linear10PercentEvery2Minutes',
  'Linear10PercentEvery3Minutes',
  'Linear10PercentEvery10Minutes',
  'AllAtOnce',
];

const functions = { functions: true }; // checked by lib/platform/config-schema.ts, as the functions read it

// The settings. `default` is for those the plugins read; serverless.yml and infra/resources.yml
// write theirs beside their `${env:…}`.
const SETTINGS = {
  WALLET_ADDRESS_URL: functions,
  AUTH_SERVER_URL: functions,
  ILP_ADDRESS: functions,
  ACCESS_TOKEN_EXPIRY_SECS: functions,
  IDP_CONSENT_URL: functions,
  INTERACTION_EXPIRY_SECS: functions,
  GNAP_WAIT_SECS: functions,
  GRAPHQL_INTROSPECTION: functions,
  OPERATOR_TENANT_ID: functions,
  OPEN_PAYMENTS_CLIENT_KEY_ID: functions,
  WALLET_ADDRESS_NOT_FOUND_WAIT_MS: functions,
  GRANT_REQUESTS_PER_MINUTE: functions,
  SLIPPAGE: functions,
  QUOTE_PRICING: functions,
  OPEN_PAYMENTS_ANY_CLIENT_QUOTES: functions,
  INCOMING_APPROVAL_REQUIRED: functions,
  INCOMING_PARTIAL_PAYMENTS: functions,
  ENABLE_SPSP_PAYMENT_POINTERS: functions,
  ALLOW_PRIVATE_FETCH: functions,
  ALLOW_PRIVATE_PEERS: functions,
  AUTO_PEERING_ENABLED: functions,
  ILP_CONNECTOR_URL: functions,
  WEBHOOK_URL: functions,
  WEBHOOK_DIALECT: functions,
  WEBHOOK_TIMEOUT_SECS: functions,
  WEBHOOK_RETRY_SCHEDULE_SECS: functions,
  EXCHANGE_RATES_URL: functions,
  EXCHANGE_RATES_LIFETIME_SECS: functions,
  EXCHANGE_RATES_TIMEOUT_SECS: functions,
  EXCHANGE_RATES_REFRESH_BEFORE_SECS: functions,
  QUOTE_LIFETIME_SECS: functions,
  LIQUIDITY_WITHDRAWAL_TIMEOUT_SECS: functions,
  SECRETS_PREFIX: functions,
  // Set by packaging (tenant-secrets.cjs), not by a deployer: how a tenant's secrets are made.
  TENANT_SECRETS_KMS_KEY_ARN: functions,
  TENANT_SECRETS_ROTATION_ARN: functions,
  TENANT_SECRETS_READERS: functions,
  POWERTOOLS_LOG_LEVEL: { check: oneOf('TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT') },
  TRACES_ENABLED: { check: bool },

  // API Gateway's stage throttles (requests a second; the account's own limits are 10,000 and 5,000).
  API_THROTTLE_RATE: { check: whole(1, 10000) },
  API_THROTTLE_BURST: { check: whole(1, 5000) },
  CONNECTOR_THROTTLE_RATE: { check: whole(1, 10000) },
  CONNECTOR_THROTTLE_BURST: { check: whole(1, 5000) },

  // The console's sign-in (console.cjs): Cognito, which LocalStack's free image lacks.
  CONSOLE_ENABLED: { check: bool, default: 'true' },
  // WAF (edge.cjs): requests per client address per 5 minutes, WAF's window (it takes 10 to 2e9).
  WAF_ENABLED: { check: bool, default: 'true' },
  API_RATE_LIMIT_PER_5MIN: { check: whole(10, 2e9), default: '3000' },
  CONNECTOR_RATE_LIMIT_PER_5MIN: { check: whole(10, 2e9), default: '300000' },
  GRANT_RATE_LIMIT_PER_5MIN: { check: whole(10, 2e9), default: '300' },
  // Who may call the Admin API and the connector (resource policies, edge.cjs).
  ADMIN_ALLOWED_CIDRS: { check: cidrs },
  ADMIN_OPEN_TO_INTERNET: { check: flag },
  CONNECTOR_ALLOWED_CIDRS: { check: cidrs },
  // Custom domains (edge.cjs): a regional ACM certificate for all four APIs' names.
  API_CERTIFICATE_ARN: {
    check: arn('acm', /^certificate\/[0-9a-f-]{36}$/, 'same', 'a regional ACM certificate, arn:aws:acm:<region>:<account>:certificate/<id>'),
  },
  ADMIN_API_DOMAIN: { check: hostname },
  CONNECTOR_DOMAIN: { check: hostname },

  // Keys, logs, backups (encryption.cjs, function-logs.cjs, backup.cjs).
  KMS_KEY_ARN: { check: arn('kms', /^key\/[0-9a-f-]{36}$|^key\/mrk-[0-9a-f]{32}$/, 'same', 'a KMS key, arn:aws:kms:<region>:<account>:key/<id>') },
  // Who administers the keys (never uses them), who deploys (CloudFormation's service role), and who
  // besides the service's own roles may read its data (break-glass, comma-separated): encryption.cjs,
  // data-access.cjs, safe-deploy.cjs.
  KEY_ADMIN_ROLE_ARN: { check: roleArn },
  DEPLOY_ROLE_ARN: { check: roleArn },
  BREAK_GLASS_ROLE_ARNS: { check: roleArns },
  // How a deploy shifts each function's traffic to its new version (CodeDeploy's predefined
  // configurations), rolled back on its new version's errors alarm; none: no versions, aliases or CodeDeploy
  // (LocalStack's free image has no CodeDeploy).
  TRAFFIC_SHIFT: { check: oneOf(...TRAFFIC_SHIFTS, 'none'), default: 'Canary10Percent5Minutes' },
  LOG_RETENTION_DAYS: {
    check: (v) => (/^\d+$/.test(v) && RETENTION_DAYS.includes(Number(v)) ? undefined : `must be one of CloudWatch Logs' periods: ${RETENTION_DAYS.join(', ')}`),
  },
  BACKUPS_ENABLED: { check: bool, default: 'true' },
  // The audit trail's objects (AuditBucket), locked in compliance mode: nobody can delete one sooner.
  AUDIT_RETENTION_DAYS: { check: whole(1, 36500) },
  BACKUP_COPY_VAULT_ARN: {
    check: arn('backup', /^backup-vault:[A-Za-z0-9_-]{2,50}$/, 'other', 'a backup vault, arn:aws:backup:<region>:<account>:backup-vault:<name>'),
  },

  // Alarms (alarms.cjs) and who hears them.
  ALARM_EMAIL: { check: email },
  ALARM_TOPIC_ARN: { check: arn('sns', /^[A-Za-z0-9_-]{1,256}$/, 'any', 'an SNS topic, arn:aws:sns:<region>:<account>:<name>') },
  ALARMS_UNSUBSCRIBED: { check: flag },
  ITERATOR_AGE_ALARM_SECS: { check: whole(1, 86400) },
  API_LATENCY_ALARM_MS: { check: whole(1, 29000) },
  OLDEST_MESSAGE_ALARM_SECS: { check: whole(60, 1209600) },
  PAYMENTS_FAILED_ALARM_COUNT: { check: whole(1, 1e6) },
  WEBHOOK_FAILURES_ALARM_COUNT: { check: whole(1, 1e6) },
  API_4XX_ALARM_COUNT: { check: whole(1, 1e9) },

  // Stages packaged with the production profile besides prod, production and prod-* (deploy-checks.cjs).
  PRODUCTION_STAGES: { check: (v) => (/^[A-Za-z0-9-]+(\s*,\s*[A-Za-z0-9-]+)*$/.test(v) ? undefined : 'must be stage names, comma-separated') },
  // The stack's own shape.
  API_GATEWAY_ACCOUNT_ROLE: { check: oneOf('create', 'existing') },
  SECRETS_EXISTING: { check: flag },
  WORKER_RESERVED_CONCURRENCY: { check: whole(1, 10000) },
  RELAY_RESERVED_CONCURRENCY: { check: whole(1, 10000) },
  WEBHOOK_RESERVED_CONCURRENCY: { check: whole(1, 10000) },
  // The relay's stream mapping: retries bounded (Lambda's own limit), and a record age it can still
  // read and re-drive from the stream, which keeps records 24 hours.
  RELAY_MAX_RETRY_ATTEMPTS: { check: whole(0, 10000) },
  RELAY_MAX_RECORD_AGE_SECS: { check: whole(60, 86400) },
};

// A comma-separated setting of role ARNs as a list.
const roleArnList = (name) =>
  (setting(name) ?? '')
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);

// A plugin's setting: its value, or its default. Only settings listed above can be read.
function setting(name) {
  const known = SETTINGS[name];
  if (!known || known.functions) throw new Error(`${name} is not a setting of infra/serverless/settings.cjs`);
  const value = process.env[name];
  return value === undefined || value === '' ? known.default : value;
}

module.exports = { SETTINGS, setting, roleArnList, parseCidr, cidrList, everywhere, RETENTION_DAYS };
