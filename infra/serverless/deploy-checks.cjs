'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { SETTINGS, cidrList, everywhere, setting } = require('./settings.cjs');
const { customDomains } = require('./edge.cjs');

// What would make a deploy unsafe, useless or silent is refused before anything is built, naming
// each bad setting at once:
// - every setting the template reads has a check (./settings.cjs) and passes it: a number in its
//   range, an e-mail, an ARN of the right service (and region), CIDRs that parse;
// - the functions' settings, resolved as they will read them, go through the one schema they
//   validate at cold start (lib/platform/config-schema.ts) (values CloudFormation fills in, such as table
//   names and queue URLs, are checked with stand-ins of their shape);
// - on every stage but local, the alarms reach someone: ALARM_EMAIL or ALARM_TOPIC_ARN, unless
//   ALARMS_UNSUBSCRIBED=1 says that nobody hearing them is meant;
// - on every stage but local, the Admin API is reachable only from ADMIN_ALLOWED_CIDRS, and an
//   "everywhere" CIDR (0.0.0.0/0, ::/0) there, or no list, needs ADMIN_OPEN_TO_INTERNET=1;
// - on every stage but local, the keys have an administrator who is not their user and the stack a
//   deploy role (KEY_ADMIN_ROLE_ARN, DEPLOY_ROLE_ARN: encryption.cjs, safe-deploy.cjs), two roles;
// - a stream consumer's reserved concurrency takes its parallelization factor times the shards of
//   a new on-demand table's stream (4), so that it is not throttled from its first day;
// - custom domains are all four or none, each API on a name of its own;
// - on a production stage (productionStage), nothing that weakens a control (weakenings): a weaker
//   stage is another stage, under another name, never a switch on this one.
const STAND_INS = { string: 'set-by-cloudformation', url: 'https://set-by-cloudformation.example/000000000000/queue', pool: 'us-east-1_SetByCloudFormation' };
const URL_SETTINGS = /_URL$/;
const POOL_SETTINGS = /_USER_POOL_ID$/;
const DECLARATIONS = ['serverless.yml', 'infra/resources.yml'];
const NEW_TABLE_SHARDS = 4;

class DeployChecks {
  constructor(serverless, options) {
    this.hooks = {
      'before:package:initialize': () => {
        const { provider } = serverless.service;
        const problems = check(serverless, options.stage ?? provider.stage, options.region ?? provider.region);
        if (problems.length) throw new serverless.classes.Error(`Settings that this deploy cannot run with:\n  ${problems.join('\n  ')}`);
      },
    };
  }
}

// The settings the declarations read (`${env:NAME…}`).
function declaredSettings(root) {
  const text = DECLARATIONS.map((f) => fs.readFileSync(path.join(root, f), 'utf8')).join('\n');
  return [...new Set([...text.matchAll(/\$\{env:([A-Z0-9_]+)/g)].map((m) => m[1]))];
}

function check(serverless, stage, region) {
  const problems = [];
  const env = process.env;
  for (const name of declaredSettings(serverless.serviceDir)) {
    if (!SETTINGS[name]) problems.push(`${name}: read by the template, but infra/serverless/settings.cjs has no check for it`);
  }
  for (const [name, { check: valid }] of Object.entries(SETTINGS)) {
    const problem = valid && env[name] !== undefined && env[name] !== '' ? valid(env[name], { region }) : undefined;
    if (problem) problems.push(`${name}: ${problem}`);
  }
  problems.push(...functionSettings(serverless.service.provider.environment ?? {}));

  const local = stage === 'local';
  if (!local && !env.ALARM_EMAIL && !env.ALARM_TOPIC_ARN && env.ALARMS_UNSUBSCRIBED !== '1') {
    problems.push('ALARM_EMAIL or ALARM_TOPIC_ARN: set one, so that the alarms reach someone (or ALARMS_UNSUBSCRIBED=1 if nobody is meant to hear them)');
  }
  if (env.ALARM_EMAIL && env.ALARM_TOPIC_ARN)
    problems.push('ALARM_EMAIL: with ALARM_TOPIC_ARN the alarms go to that topic, and the address would hear none: subscribe it there');

  if (!local) {
    if (!env.KEY_ADMIN_ROLE_ARN) problems.push('KEY_ADMIN_ROLE_ARN: the role that administers the stage\'s keys (and never uses them): docs/deploy.md, "Keys"');
    if (!env.DEPLOY_ROLE_ARN) problems.push('DEPLOY_ROLE_ARN: the role CloudFormation deploys the stack as: docs/deploy.md, "Keys"');
  }
  if (env.KEY_ADMIN_ROLE_ARN && env.KEY_ADMIN_ROLE_ARN === env.DEPLOY_ROLE_ARN)
    problems.push("KEY_ADMIN_ROLE_ARN: the keys' administrator must be another role than DEPLOY_ROLE_ARN");

  const open = env.ADMIN_OPEN_TO_INTERNET === '1';
  const admin = cidrList(env.ADMIN_ALLOWED_CIDRS).cidrs;
  if (!local && !admin.length && !open) {
    problems.push('ADMIN_ALLOWED_CIDRS: the networks the FSP calls the Admin API from (or ADMIN_OPEN_TO_INTERNET=1 to leave it open to every address)');
  }
  const wide = admin.filter(everywhere).map((c) => c.cidr);
  if (wide.length && !open)
    problems.push(`ADMIN_ALLOWED_CIDRS: ${wide.join(', ')} is every address: the Admin API moves money (ADMIN_OPEN_TO_INTERNET=1 if that is meant)`);
  const peers = cidrList(env.CONNECTOR_ALLOWED_CIDRS).cidrs.filter(everywhere);
  if (peers.length) problems.push(`CONNECTOR_ALLOWED_CIDRS: ${peers[0].cidr} is every address: leave it unset for a connector open to any peer`);

  for (const [name, fn] of Object.entries(serverless.service.functions ?? {})) {
    const factor = Math.max(0, ...(fn.events ?? []).map((e) => Number(e.stream?.parallelizationFactor ?? 0)));
    const polling = Math.max(0, ...(fn.events ?? []).map((e) => Number(e.sqs?.maximumConcurrency ?? 0)));
    const reserved = Number(fn.reservedConcurrency);
    const settingOf = () => {
      const declared = require('yaml').parse(fs.readFileSync(path.join(serverless.serviceDir, 'serverless.yml'), 'utf8')).functions;
      // functions: a map, or a list of them (the first from the Admin routes' declarations).
      const written = [].concat(declared).find((part) => typeof part === 'object' && part?.[name])?.[name].reservedConcurrency;
      return /\$\{env:(\w+)/.exec(String(written))?.[1] ?? `${name}'s reservedConcurrency`;
    };
    if (factor && reserved && reserved < factor * NEW_TABLE_SHARDS) {
      problems.push(
        `${settingOf()}: ${reserved} is below ${factor * NEW_TABLE_SHARDS}, the parallelization factor ${factor} times a new table stream's ${NEW_TABLE_SHARDS} shards`,
      );
    }
    if (polling && reserved && reserved < polling)
      problems.push(`${settingOf()}: ${reserved} is below ${polling}, its queue mapping's maximumConcurrency (Lambda would throttle what it polls)`);
  }
  problems.push(...customDomains(serverless.service.provider.environment ?? {}).problems);
  if (productionStage(stage)) problems.push(...weakenings(env, serverless.service.provider.environment ?? {}));
  return problems;
}

// A production stage: `prod`, `production`, `prod-<anything>`, or one PRODUCTION_STAGES names. The
// setting only adds stages: nothing makes `prod` anything else.
const PRODUCTION = /^(prod|production)(-.*)?$/;
function productionStage(stage) {
  const named = (setting('PRODUCTION_STAGES') ?? '').split(',').map((s) => s.trim());
  return PRODUCTION.test(stage) || named.includes(stage);
}

// The audit's minimum for the logs (PCI DSS 10.5.1: a year of audit trail).
const AUDIT_RETENTION_DAYS = 365;
const LOG_LEVELS_REFUSED = { TRACE: 'logs what requests carry', DEBUG: 'logs what requests carry', SILENT: 'logs nothing' };

// What a production stage refuses, each naming its setting: `env` the deploy's settings, `environment`
// the functions' as they will read them (defaults in).
function weakenings(env, environment) {
  const off = (name, why) => `${name}: ${why} (refused on a production stage: deploy a weaker one under another stage name)`;
  const problems = [];
  if (setting('WAF_ENABLED') !== 'true') problems.push(off('WAF_ENABLED', 'false leaves every API without WAF'));
  if (setting('BACKUPS_ENABLED') !== 'true') problems.push(off('BACKUPS_ENABLED', 'false leaves the tables without daily backups'));
  else if (!env.BACKUP_COPY_VAULT_ARN) problems.push(off('BACKUP_COPY_VAULT_ARN', 'unset keeps no copy of the backups in another region'));
  const retention = Number(env.LOG_RETENTION_DAYS || AUDIT_RETENTION_DAYS);
  if (retention < AUDIT_RETENTION_DAYS) problems.push(off('LOG_RETENTION_DAYS', `${retention} days is under the audit's ${AUDIT_RETENTION_DAYS}`));
  if (environment.ALLOW_PRIVATE_FETCH === 'true') problems.push(off('ALLOW_PRIVATE_FETCH', 'true lets fetches of URLs clients choose reach private addresses'));
  if (environment.ALLOW_PRIVATE_PEERS) problems.push(off('ALLOW_PRIVATE_PEERS', 'lets peers at private addresses through the outbound guard'));
  const level = environment.POWERTOOLS_LOG_LEVEL;
  if (LOG_LEVELS_REFUSED[level]) problems.push(off('POWERTOOLS_LOG_LEVEL', `${level} ${LOG_LEVELS_REFUSED[level]}`));
  if (env.ADMIN_OPEN_TO_INTERNET === '1') problems.push(off('ADMIN_OPEN_TO_INTERNET', 'opens the Admin API to every address'));
  if (env.ALARMS_UNSUBSCRIBED === '1') problems.push(off('ALARMS_UNSUBSCRIBED', 'leaves the alarms heard by nobody'));
  if (!env.API_CERTIFICATE_ARN) problems.push(off('API_CERTIFICATE_ARN', 'unset leaves the APIs on their execute-api endpoints, without custom domains'));
  if (!env.CONNECTOR_ALLOWED_CIDRS) problems.push(off('CONNECTOR_ALLOWED_CIDRS', 'unset lets any address send the connector packets'));
  for (const [name, value] of Object.entries(environment)) {
    if (URL_SETTINGS.test(name) && typeof value === 'string' && /^http:/i.test(value)) problems.push(off(name, `${value} is plain http`));
  }
  return problems;
}

// The functions' schema over their environment as deployed.
function functionSettings(environment) {
  const env = {};
  for (const [name, value] of Object.entries(environment)) {
    const standIn = URL_SETTINGS.test(name) ? STAND_INS.url : POOL_SETTINGS.test(name) ? STAND_INS.pool : STAND_INS.string;
    env[name] = typeof value === 'string' ? value : standIn;
  }
  const { register } = require('tsx/cjs/api');
  const unregister = register();
  try {
    require('../../lib/platform/config-schema.ts').readConfig(env);
    return [];
  } catch (e) {
    return String(e.message)
      .split('\n')
      .slice(1)
      .map((line) => line.trim());
  } finally {
    unregister();
  }
}

module.exports = DeployChecks;
module.exports.declaredSettings = declaredSettings;
module.exports.productionStage = productionStage;
