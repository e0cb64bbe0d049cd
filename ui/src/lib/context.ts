// The window's services, provided once by the root component and read by
// any component below it: no state is handed down through layers of props.

import { createContext } from 'svelte';
import type { Benchmark } from './bench.svelte';
import type { ClientsView } from './clients.svelte';
import type { Commands } from './commands.svelte';
import type { Dialogs } from './dialogs.svelte';
import type { Layout } from './layout.svelte';
import type { ModelInstaller } from './models.svelte';
import type { RoutingChoice } from './routing.svelte';
import type { SecurityReports } from './security.svelte';
import type { Session } from './session.svelte';
import type { Suites } from './suites.svelte';

export interface Services {
  session: Session;
  routing: RoutingChoice;
  suites: Suites;
  dialogs: Dialogs;
  layout: Layout;
  commands: Commands;
  security: SecurityReports;
  bench: Benchmark;
  clients: ClientsView;
  models: ModelInstaller;
}

export const [useServices, provideServices] = createContext<Services>();
