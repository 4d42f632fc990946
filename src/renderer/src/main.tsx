/*
 * The renderer's entry point: makes the state from the preload's bridge, renders the app, and lets everything go when
 * the page is closed.
 */

import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import type { WorkbenchBridge } from '../../shared/ipc/bridge';
import { DisposableStore, toDisposable } from '../../shared/lifecycle';
import { App } from './App';
import { SpareTerminal, SpareTerminalContext } from './tool-calls/TerminalView';
import { AppStore } from './store';
import './styles.css';

function bridge(): WorkbenchBridge {
  const found = window.workbench;
  if (!found) throw new Error('The workbench bridge is missing: the page was not opened by the app.');
  return found;
}

const container = document.getElementById('root');
if (!container) throw new Error('The page has no #root element.');
const root = createRoot(container);
/** What the page made for its whole life: the state and its subscriptions to main, the spare terminal, the UI. */
const page = new DisposableStore();
try {
  const store = page.add(new AppStore(bridge()));
  const spares = page.add(new SpareTerminal());
  void store.start();
  root.render(
    <StrictMode>
      <SpareTerminalContext value={spares}>
        <App store={store} />
      </SpareTerminalContext>
    </StrictMode>,
  );
  // Disposed first: the components let go of their terminals before the spare and the state go.
  page.add(toDisposable(() => root.unmount()));
  spares.warm();
} catch (error) {
  root.render(<p role="alert">{error instanceof Error ? error.message : String(error)}</p>);
}
// A page that is put away to be shown again (the back-forward cache) keeps everything.
page.listen(window, 'pagehide', (event: PageTransitionEvent) => {
  if (!event.persisted) void page.dispose();
});
