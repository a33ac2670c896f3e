import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import './i18n';
// The shared layer's global styles first, so every area's stylesheet
// (imported by its components) comes after them and may refine them.
import './ui/base.css';
import { App } from './shell/App';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
