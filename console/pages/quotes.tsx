import type { PageProps } from '../pages';
import { RecordPage } from '../record';

// #/quotes/<id>: one quote (quotes have no list: a payment links to its own).
export const QuotesPage = ({ args }: PageProps) => <RecordPage route={`/quotes/${args[0]}`} label="Quote" back={{ href: '#/payments', text: 'Payments' }} />;
