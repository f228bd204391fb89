import type { ComponentType } from 'preact';
import { DashboardPage } from './dashboard';

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

export const PAGES: Page[] = [{ path: 'dashboard', title: 'Dashboard', group: 'Monitor', component: DashboardPage }];
