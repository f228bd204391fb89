import type { ComponentType } from 'preact';
import { AssetsPage } from './pages/assets';
import { AuditPage } from './pages/audit';
import { DashboardPage } from './pages/dashboard';
import { FindPage } from './pages/find';
import { GrantsPage } from './pages/grants';
import { LedgerPage } from './pages/ledger';
import { WithdrawalsPage } from './pages/liquidity-withdrawals';
import { IntentsPage } from './pages/payment-intents';
import { PaymentsPage } from './pages/payments';
import { PeersPage } from './pages/peers';
import { QuotesPage } from './pages/quotes';
import { RatesPage } from './pages/rates';
import { TracesPage } from './pages/traces';
import { TransfersPage } from './pages/transfers';
import { WalletAddressesPage } from './pages/wallet-addresses';
import { WebhookEventsPage } from './pages/webhook-events';

// Every page of the console, in the order the navigation lists them under their group. #/<path>
// shows a page, and #/<path>/<more>/… gives it `args` (["<more>", …]: an id, say). A page is its
// file, console/pages/<path>.tsx, and one more entry here. The back-office pages each read an Admin
// API route through admin() (./api.ts), most of them a list (./list.tsx), and offer the actions
// their records allow, each confirmed in the page first.
export interface PageProps {
  args: string[];
}

export interface Page {
  path: string;
  title: string;
  group: 'Monitor' | 'Back office';
  component: ComponentType<PageProps>;
  unlisted?: true; // reached by a link or the search box, not from the navigation
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
  { path: 'quotes', title: 'Quote', group: 'Back office', component: QuotesPage, unlisted: true },
  { path: 'find', title: 'Find', group: 'Back office', component: FindPage, unlisted: true },
];
