import { render } from 'preact';
import './dashboard.css';
import { App } from './App.tsx';
import { initI18n } from './i18n.ts';

/** The dashboard's entry (dashboard/build.ts bundles it; server/dashboard/pages.ts serves the page that loads it). */
initI18n();
const root = document.getElementById('app');
if (root) render(<App />, root);
