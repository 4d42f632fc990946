import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { bridge } from './client';
import { AppStore } from './store';
import './styles.css';

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
} catch (error) {
  root.render(<p role="alert">{error instanceof Error ? error.message : String(error)}</p>);
}
