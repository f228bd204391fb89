import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error a serverless plugin, in CommonJS without types
import { productionStage } from '../../../infra/serverless/deploy-checks.cjs';
import { BACKSTOP_MS, refusal, slsPackage } from './packaged';

// The production profile (infra/serverless/deploy-checks.cjs): on a production stage, every switch
// that weakens a control is refused before anything is built, naming its setting. Each of these
// packaged prod with exit 0 before. The checks run here in-process (./packaged.ts, refusal); one
// real `serverless package --stage prod` shows their place in packaging.

// Each weakening: the setting it is named by, and the changes to the production settings that make it.
const WEAKENINGS: Array<[string, Record<string, string | undefined>]> = [
  ['WAF_ENABLED', { WAF_ENABLED: 'false' }],
  ['BACKUPS_ENABLED', { BACKUPS_ENABLED: 'false' }],
  ['BACKUP_COPY_VAULT_ARN', { BACKUP_COPY_VAULT_ARN: undefined }],
  ['LOG_RETENTION_DAYS', { LOG_RETENTION_DAYS: '1' }],
  ['LOG_RETENTION_DAYS', { LOG_RETENTION_DAYS: '180' }],
  ['ALLOW_PRIVATE_FETCH', { ALLOW_PRIVATE_FETCH: 'true' }],
  ['ALLOW_PRIVATE_PEERS', { ALLOW_PRIVATE_PEERS: 'operator' }],
  ['POWERTOOLS_LOG_LEVEL', { POWERTOOLS_LOG_LEVEL: 'DEBUG' }],
  ['POWERTOOLS_LOG_LEVEL', { POWERTOOLS_LOG_LEVEL: 'TRACE' }],
  ['ADMIN_OPEN_TO_INTERNET', { ADMIN_OPEN_TO_INTERNET: '1', ADMIN_ALLOWED_CIDRS: '0.0.0.0/0' }],
  ['ALARMS_UNSUBSCRIBED', { ALARMS_UNSUBSCRIBED: '1', ALARM_EMAIL: undefined }],
  ['API_CERTIFICATE_ARN', { API_CERTIFICATE_ARN: undefined, ADMIN_API_DOMAIN: undefined, CONNECTOR_DOMAIN: undefined }],
  ['CONNECTOR_ALLOWED_CIDRS', { CONNECTOR_ALLOWED_CIDRS: undefined }],
  ['WEBHOOK_URL', { WEBHOOK_URL: 'http://fsp.example.com/webhooks' }],
  ['EXCHANGE_RATES_URL', { EXCHANGE_RATES_URL: 'http://fsp.example.com/rates' }],
];

describe('the production profile', () => {
  it('refuses every switch that weakens a control on prod, naming its setting; a stage of another name takes it', () => {
    expect(refusal({})).toBe(''); // the production settings themselves pass
    for (const [name, changes] of WEAKENINGS) {
      const refused = refusal(changes);
      expect(refused, JSON.stringify(changes)).toMatch(new RegExp(`^ *${name}: .*\\(refused on a production stage`, 'm'));
      expect(refusal(changes, 'staging'), JSON.stringify(changes)).toBe('');
    }
    // All at once: each named (but the copy of backups that are off).
    const all = refusal(Object.assign({}, ...WEAKENINGS.map(([, changes]) => changes)));
    for (const [name] of WEAKENINGS.filter(([n]) => n !== 'BACKUP_COPY_VAULT_ARN')) expect(all, name).toMatch(new RegExp(`^ *${name}: `, 'm'));
  });

  it('takes prod, production, prod-* and the stages PRODUCTION_STAGES names as production, and nothing else', () => {
    for (const stage of ['prod', 'production', 'prod-eu', 'production-2']) expect(productionStage(stage), stage).toBe(true);
    for (const stage of ['staging', 'preprod', 'dev', 'local', 'ci', 'products']) expect(productionStage(stage), stage).toBe(false);
    expect(refusal({ PRODUCTION_STAGES: 'live, bank', WAF_ENABLED: 'false' }, 'bank')).toMatch(/^ *WAF_ENABLED: .*production stage/m);
    expect(refusal({ PRODUCTION_STAGES: 'live', WAF_ENABLED: 'false' }, 'staging')).toBe('');
    expect(refusal({ PRODUCTION_STAGES: 'live;rm' })).toMatch(/^ *PRODUCTION_STAGES: must be stage names/m);
  });

  it(
    'refuses a weakened prod package before anything is built',
    async () => {
      const refused = await slsPackage({ WAF_ENABLED: 'false', ALARMS_UNSUBSCRIBED: '1' });
      expect(refused.code).not.toBe(0);
      expect(refused.output).toMatch(/WAF_ENABLED: false leaves every API without WAF \(refused on a production stage/);
      expect(refused.output).toContain('ALARMS_UNSUBSCRIBED: leaves the alarms heard by nobody');
      expect(existsSync(refused.dir)).toBe(false);
    },
    BACKSTOP_MS,
  );
});
