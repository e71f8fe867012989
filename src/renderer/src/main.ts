// The renderer's entry: Vue, pinia, AG Grid's community modules, and the app-wide error handler
// that turns any uncaught error into a readable message instead of a blank screen. A cancelled job
// that escaped its store is the user's own doing, not a failure: no toast for it.
import { createApp } from 'vue';
import { createPinia } from 'pinia';
import { AllCommunityModule, ModuleRegistry } from 'ag-grid-community';
import App from './App.vue';
import { describeError, getBridge, isCancelled } from './bridge';
import { useUiStore } from './stores/ui';
import './styles/app.css';

ModuleRegistry.registerModules([AllCommunityModule]);
// In browser mode this takes the page token out of the address bar before anything else runs.
getBridge();

const app = createApp(App);
const pinia = createPinia();
app.use(pinia);

app.config.errorHandler = (err) => {
  if (isCancelled(err)) return;
  console.error(err);
  useUiStore(pinia).reportError(describeError(err));
};
window.addEventListener('unhandledrejection', (event) => {
  if (isCancelled(event.reason)) {
    event.preventDefault();
    return;
  }
  useUiStore(pinia).reportError(describeError(event.reason));
});

app.mount('#app');
