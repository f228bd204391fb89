'use strict';

// What would make a deploy useless or silent is refused before anything is built:
// - the functions' settings, resolved as they will read them, go through the one schema they
//   validate at cold start (lib/config-schema.ts), so a bad value fails the package, naming each
//   bad variable, not every function after the deploy (values CloudFormation fills in, such as
//   table names and queue URLs, are checked with stand-ins of their shape);
// - on every stage but local, the alarms must reach someone: ALARM_EMAIL (subscribed to the
//   alarm topic) or ALARM_TOPIC_ARN (a topic of yours), unless ALARMS_UNSUBSCRIBED=1 says that
//   nobody hearing them is meant;
// - on every stage but local, the Admin API is reachable only from ADMIN_ALLOWED_CIDRS
//   (admin-api-access.cjs), unless ADMIN_OPEN_TO_INTERNET=1 says it is meant to be open;
// - the reserved concurrencies and the outbox relay's retry bounds are numbers Lambda takes.
const { allowedCidrs } = require('./admin-api-access.cjs');

const STAND_INS = { string: 'set-by-cloudformation', url: 'https://set-by-cloudformation.example/000000000000/queue' };
const URL_SETTINGS = /_URL$/;

class DeployChecks {
  constructor(serverless, options) {
    this.hooks = {
      'before:package:initialize': () => check(serverless, options.stage ?? serverless.service.provider.stage),
    };
  }
}

function check(serverless, stage) {
  const problems = [];
  const env = {};
  for (const [name, value] of Object.entries(serverless.service.provider.environment ?? {})) {
    env[name] = typeof value === 'string' ? value : URL_SETTINGS.test(name) ? STAND_INS.url : STAND_INS.string;
  }
  const { register } = require('tsx/cjs/api');
  const unregister = register();
  try {
    require('../../lib/config-schema.ts').readConfig(env);
  } catch (e) {
    problems.push(
      ...String(e.message)
        .split('\n')
        .slice(1)
        .map((line) => line.trim()),
    );
  } finally {
    unregister();
  }
  const { ALARM_EMAIL, ALARM_TOPIC_ARN, ALARMS_UNSUBSCRIBED } = process.env;
  if (stage !== 'local' && !ALARM_EMAIL && !ALARM_TOPIC_ARN && ALARMS_UNSUBSCRIBED !== '1') {
    problems.push('ALARM_EMAIL or ALARM_TOPIC_ARN: set one, so that the alarms reach someone (or ALARMS_UNSUBSCRIBED=1 if nobody is meant to hear them)');
  }
  const { cidrs, bad } = allowedCidrs(process.env.ADMIN_ALLOWED_CIDRS);
  if (bad.length) problems.push(`ADMIN_ALLOWED_CIDRS: not CIDRs: ${bad.join(', ')} (e.g. 203.0.113.0/24,2001:db8::/32)`);
  if (stage !== 'local' && !cidrs.length && process.env.ADMIN_OPEN_TO_INTERNET !== '1') {
    problems.push('ADMIN_ALLOWED_CIDRS: the networks the FSP calls the Admin API from (or ADMIN_OPEN_TO_INTERNET=1 to leave it open to every address)');
  }
  for (const name of ['WORKER_RESERVED_CONCURRENCY', 'RELAY_RESERVED_CONCURRENCY']) {
    const value = process.env[name];
    if (value !== undefined && !/^[1-9]\d{0,4}$/.test(value)) problems.push(`${name}: must be a whole number of at least 1 (0 would stop the function)`);
  }
  // The relay's stream mapping: retries bounded (Lambda's own limit), and a record age it can still
  // read and re-drive from the stream, which keeps records 24 hours.
  for (const [name, min, max] of [
    ['RELAY_MAX_RETRY_ATTEMPTS', 0, 10000],
    ['RELAY_MAX_RECORD_AGE_SECS', 60, 86400],
  ]) {
    const value = process.env[name];
    if (value !== undefined && !(/^\d+$/.test(value) && Number(value) >= min && Number(value) <= max))
      problems.push(`${name}: must be a whole number from ${min} to ${max}`);
  }
  if (problems.length) {
    throw new serverless.classes.Error(`Settings that this deploy cannot run with:\n  ${problems.join('\n  ')}`);
  }
}

module.exports = DeployChecks;
