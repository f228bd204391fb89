import type { ComponentType } from 'preact';
import { AuditPage } from './audit';
import {
  AssetsPage,
  IntentsPage,
  LedgerPage,
  PaymentsPage,
  PeersPage,
  RatesPage,
  TransfersPage,
  WalletAddressesPage,
  WebhookEventsPage,
  WithdrawalsPage,
} from './back-office';
import { DashboardPage } from './dashboard';
import { GrantsPage } from './grants';
import { TracesPage } from './traces';

// Every page of the console, in the order the navigation lists them under their group. #/<path>
// shows a page, and #/<path>/<more>/… gives it `args` (["<more>", …]: an id, say). A list page is
// one more entry: a component that reads its Admin API route through admin() (./api.ts).
export interface PageProps {
  args: string[];
}

export interface Page {
  path: string;
  title: string;
  group: 'Monitor' | 'Back office';
  component: ComponentType<PageProps>;
}

export const PAGES: Page[] = [
  { path: 'dashboard', title: 'Dashboard', group: 'Monitor', component: DashboardPage },
  { path: 'traces', title: 'Traces', group: 'Monitor', component: TracesPage },
  { path: 'payments', title: 'Payments', group: 'Back office', component: PaymentsPage },
  { path: 'payment-intents', title: 'Payment intents', group: 'Back office', component: IntentsPage },
  { path: 'wallet-addresses', title: 'Wallet addresses', group: 'Back office', component: WalletAddressesPage },
  { path: 'assets', title: 'Assets', group: 'Back office', component: AssetsPage },
  { path: 'peers', title: 'Peers', group: 'Back office', component: PeersPage },
  { path: 'liquidity-withdrawals', title: 'Withdrawals', group: 'Back office', component: WithdrawalsPage },
  { path: 'webhook-events', title: 'Webhook events', group: 'Back office', component: WebhookEventsPage },
  { path: 'grants', title: 'Grants', group: 'Back office', component: GrantsPage },
  { path: 'rates', title: 'Rates', group: 'Back office', component: RatesPage },
  { path: 'ledger', title: 'Ledger check', group: 'Back office', component: LedgerPage },
  { path: 'transfers', title: 'Transfers', group: 'Back office', component: TransfersPage },
  { path: 'audit', title: 'Audit', group: 'Back office', component: AuditPage },
];
