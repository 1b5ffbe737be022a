import { adminsScreen, workspacesScreen } from './admins.ts';
import { configScreen } from './config.ts';
import { connectionsScreen } from './connections.ts';
import { destinationsScreen } from './destinations.ts';
import { exportsScreen } from './exports.ts';
import { historyScreen } from './history.ts';
import { homeScreen } from './home.ts';
import { keysScreen, rolesScreen } from './keys.ts';
import { metricsScreen } from './metrics.ts';
import { alertsScreen, auditScreen, cacheScreen, collectionsScreen, eventsScreen, settingsScreen } from './ops.ts';
import { queriesScreen } from './queries.ts';
import { workbenchScreen } from '../workbench/screen.ts';

export interface Screen {
  path: string;
  title: string;
  /** The capability needed to open it; without it the screen is not offered. */
  capability?: string;
  nav: boolean;
  render: (view: HTMLElement, args: string[]) => Promise<void>;
}

export const SCREENS: Screen[] = [
  { path: 'home', title: 'Overview', nav: true, render: homeScreen },
  { path: 'connections', title: 'Connections', capability: 'connections.read', nav: true, render: connectionsScreen },
  { path: 'queries', title: 'Saved queries', capability: 'queries.read', nav: true, render: queriesScreen },
  { path: 'workbench', title: 'SQL workbench', capability: 'data.run', nav: true, render: workbenchScreen },
  { path: 'collections', title: 'Collections', capability: 'collections.read', nav: true, render: collectionsScreen },
  { path: 'keys', title: 'API keys', capability: 'keys.read', nav: true, render: keysScreen },
  { path: 'roles', title: 'Roles', capability: 'roles.read', nav: true, render: rolesScreen },
  { path: 'history', title: 'History', capability: 'history.read', nav: true, render: historyScreen },
  { path: 'metrics', title: 'Metrics', capability: 'history.read', nav: true, render: metricsScreen },
  { path: 'events', title: 'Live runs', capability: 'history.read', nav: true, render: eventsScreen },
  { path: 'destinations', title: 'Destinations', capability: 'destinations.read', nav: true, render: destinationsScreen },
  { path: 'exports', title: 'Exports', capability: 'exports.read', nav: true, render: exportsScreen },
  { path: 'cache', title: 'Cache', capability: 'cache.read', nav: true, render: cacheScreen },
  { path: 'audit', title: 'Audit log', capability: 'audit.read', nav: true, render: auditScreen },
  { path: 'alerts', title: 'Alerts', capability: 'alerts.read', nav: true, render: alertsScreen },
  { path: 'administrators', title: 'Administrators', capability: 'administrators.read', nav: true, render: adminsScreen },
  { path: 'workspaces', title: 'Workspaces', nav: true, render: workspacesScreen },
  { path: 'config', title: 'Configuration', capability: 'config.read', nav: true, render: configScreen },
  { path: 'settings', title: 'Settings', capability: 'settings.read', nav: true, render: settingsScreen },
];
