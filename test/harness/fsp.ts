import { join } from 'node:path';
import { type FspOptions, startFsp } from '../../infra/local/fsp/fsp';
import { ROOT } from '../../infra/local/start/serverless-config';
import { TEST_WEBHOOK_SECRET } from '../servers/webhook-receiver';
import type { TestStack } from './stack';

// The FSP simulator beside a test stack: the local rates file, the tests' webhook secret, and the
// stack's Admin API with its secret; the rest as the test asks.
export const startStackFsp = (
  s: Pick<TestStack, 'adminUrl' | 'env'>,
  port: number,
  more: Omit<FspOptions, 'port' | 'ratesFile' | 'webhookSecret' | 'adminUrl' | 'adminSecret'>,
) =>
  startFsp({
    port,
    ratesFile: join(ROOT, 'infra/local/fsp/fsp-rates.json'),
    webhookSecret: TEST_WEBHOOK_SECRET,
    adminUrl: s.adminUrl,
    adminSecret: s.env.ADMIN_API_SECRET,
    ...more,
  });

// A test stack's settings for the FSP simulator on `port`: its webhooks and its consent page (with
// `idpSecret`), no rates pulled.
export const fspSettings = (port: number, idpSecret: string) => ({
  EXCHANGE_RATES_URL: '',
  WEBHOOK_URL: `http://localhost:${port}/webhooks`,
  WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
  IDP_CONSENT_URL: `http://localhost:${port}/consent`,
  IDP_SECRET: idpSecret,
});
