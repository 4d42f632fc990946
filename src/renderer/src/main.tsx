import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import type { WorkbenchBridge } from '../../shared/ipc/bridge';
import { App } from './App';
import { warmTerminal } from './components/TerminalView';
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
try {
  const store = new AppStore(bridge());
  void store.start();
  root.render(
    <StrictMode>
      <App store={store} />
    </StrictMode>,
  );
  warmTerminal();
} catch (error) {
  root.render(<p role="alert">{error instanceof Error ? error.message : String(error)}</p>);
}
