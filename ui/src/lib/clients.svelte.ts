// The Clients tab's state: the five clients and which are installed, the
// client and model chosen, their verdicts on the open library, and the
// capture of the installed client's real listing (long: it runs the client;
// cancellable, and the window stays usable meanwhile). Verdicts are asked
// again for each reading of the library and each choice; a capture belongs
// to the choice and reading it was made for, and is dropped when either
// changes.

import * as ipc from './ipc';
import type { CaptureView, Client, ClientChoiceView, LibraryVerdicts, LibraryView } from './ipc';
import { Latest } from './latest';

/** What the tab needs of the app, so tests can stand in for it. */
export interface ClientsIpc {
  clientsList: typeof ipc.clientsList;
  clientsVerdicts: typeof ipc.clientsVerdicts;
  clientsCapture: typeof ipc.clientsCapture;
  clientsCaptureCancel: typeof ipc.clientsCaptureCancel;
}

export class ClientsView {
  clients = $state.raw<ClientChoiceView[]>([]);
  client = $state<Client>('claude-code');
  /** `''`: the client's default model. */
  model = $state('');
  verdicts = $state.raw<LibraryVerdicts | null>(null);
  error = $state<string | null>(null);
  loading = $state(false);

  capture = $state.raw<CaptureView | null>(null);
  captureError = $state<string | null>(null);
  capturing = $state(false);
  cancelling = $state(false);
  /** When the capture in progress started (`Date.now()`), for its elapsed time. */
  captureStarted = $state<number | null>(null);
  now = $state(Date.now());

  private generation: number | null = null;
  private readonly requests = new Latest();
  private ticker: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly app: ClientsIpc = ipc) {}

  /** The chosen client's entry of the list. */
  get chosen(): ClientChoiceView | null {
    return this.clients.find((c) => c.profile.client === this.client) ?? null;
  }

  /** Lists the clients once. */
  async load(): Promise<void> {
    if (this.clients.length) return;
    try {
      this.clients = await this.app.clientsList();
    } catch (e) {
      this.error = String(e);
    }
  }

  /** Asks for `library`'s verdicts, unless this reading and choice were asked already. */
  async refresh(library: LibraryView | null, force = false): Promise<void> {
    if (!library) return;
    if (!force && this.generation === library.generation && this.verdicts) return;
    if (this.generation !== library.generation) this.capture = null;
    this.generation = library.generation;
    this.loading = true;
    const choice = { client: this.client, model: this.model.trim() || null };
    await this.requests.run(
      () => this.app.clientsVerdicts(choice),
      (fresh) => {
        this.verdicts = fresh;
        this.error = null;
        this.loading = false;
      },
      (e) => {
        this.error = String(e);
        this.verdicts = null;
        this.loading = false;
      },
    );
  }

  /** Chooses a client (its default model) and asks for its verdicts. */
  async choose(client: Client, library: LibraryView | null): Promise<void> {
    if (client === this.client) return;
    this.client = client;
    this.model = '';
    this.capture = null;
    this.captureError = null;
    await this.refresh(library, true);
  }

  async chooseModel(model: string, library: LibraryView | null): Promise<void> {
    this.model = model;
    this.capture = null;
    this.captureError = null;
    await this.refresh(library, true);
  }

  /** Runs the installed client offline and keeps its comparison. */
  async runCapture(): Promise<void> {
    if (this.capturing) return;
    const choice = { client: this.client, model: this.model.trim() || null };
    this.capturing = true;
    this.cancelling = false;
    this.capture = null;
    this.captureError = null;
    this.captureStarted = Date.now();
    this.now = Date.now();
    this.ticker = setInterval(() => (this.now = Date.now()), 500);
    try {
      const result = await this.app.clientsCapture(choice);
      // A capture for a choice since left is not shown under another.
      if (choice.client === this.client && (choice.model ?? '') === this.model.trim()) this.capture = result;
    } catch (e) {
      this.captureError = String(e);
    } finally {
      if (this.ticker) clearInterval(this.ticker);
      this.ticker = null;
      this.capturing = false;
      this.cancelling = false;
      this.captureStarted = null;
    }
  }

  async cancelCapture(): Promise<void> {
    if (!this.capturing) return;
    this.cancelling = true;
    await this.app.clientsCaptureCancel();
  }

  /** Milliseconds since the capture in progress started. */
  get elapsed(): number {
    return this.captureStarted === null ? 0 : this.now - this.captureStarted;
  }
}
